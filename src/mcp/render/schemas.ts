/**
 * Input schemas of the rendered tools and prompts, small builders for the output schemas,
 * and argument validation. Schemas stay within the keywords that draft-07 and 2020-12
 * share, because clients validate with whichever dialect they ship.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BoundedCache } from '../../cache/bounded.js';
import { AppError } from '../../errors.js';
import type { ManifestContext } from '../../manifest/types.js';
import { oneLine } from './markdown.js';

export type Schema = Record<string, unknown>;

const MAX_TASK_LENGTH = 20_000;
const MAX_CONTEXT_VALUE_LENGTH = 2_000;
const MAX_CONTEXT_KEYS = 32;
const KNOWN_CONTEXT_KEYS = {
  repo: 'Repository the work happens in (URL or owner/name).',
  language: 'Main programming language.',
  framework: 'Application framework.',
  test_framework: 'Test framework the tests use.',
} as const;

/** The defaults sentence of each context object: a workflow's step tools all share its context. */
const defaultsByContext = new WeakMap<ManifestContext, string>();

function contextDefaults(context: ManifestContext | undefined): string {
  if (!context) return '';
  let text = defaultsByContext.get(context);
  if (text === undefined) {
    const pairs = Object.entries(context)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      .map(([k, v]) => `${oneLine(k)}=${oneLine(String(v))}`);
    text = pairs.length > 0 ? ` The workflow's defaults: ${pairs.join(', ')}.` : '';
    defaultsByContext.set(context, text);
  }
  return text;
}

function taskProperty(): Schema {
  return {
    type: 'string',
    maxLength: MAX_TASK_LENGTH,
    description: 'What the user wants done, in their words. Optional; the plan then follows the workflow intent alone.',
  };
}

function contextProperty(context: ManifestContext | undefined): Schema {
  const properties: Record<string, Schema> = {};
  for (const [key, description] of Object.entries(KNOWN_CONTEXT_KEYS)) {
    properties[key] = { type: 'string', maxLength: MAX_CONTEXT_VALUE_LENGTH, description };
  }
  return {
    type: 'object',
    description: `Overrides for the workflow's context (string values only).${contextDefaults(context)}`,
    properties,
    additionalProperties: { type: 'string', maxLength: MAX_CONTEXT_VALUE_LENGTH },
    maxProperties: MAX_CONTEXT_KEYS,
  };
}

export function mainInputSchema(context: ManifestContext | undefined): Schema {
  return {
    type: 'object',
    properties: { task: taskProperty(), context: contextProperty(context) },
    additionalProperties: false,
  };
}

export function stepInputSchema(context: ManifestContext | undefined, dependsOn: readonly string[]): Schema {
  const from = dependsOn.length > 0 ? ` Pass the results of ${dependsOn.join(', ')} here.` : '';
  return {
    type: 'object',
    properties: {
      task: taskProperty(),
      context: contextProperty(context),
      inputs: { type: 'object', description: `Values this step works on, keyed by name.${from}` },
    },
    additionalProperties: false,
  };
}

export const PROMPT_ARGUMENTS = [{ name: 'task', description: 'What the user wants done. Optional.', required: false }];

/** MCP prompt arguments are always strings. */
export const promptInputSchema: Schema = {
  type: 'object',
  properties: { task: { type: 'string', maxLength: MAX_TASK_LENGTH } },
  additionalProperties: false,
};

// Output-schema builders: every object is closed so drift between a renderer and its
// schema fails the schema tests instead of reaching clients.
export const str = (description?: string): Schema => (description ? { type: 'string', description } : { type: 'string' });
export const int = (description?: string): Schema => (description ? { type: 'integer', description } : { type: 'integer' });
export const num = (description?: string): Schema => (description ? { type: 'number', description } : { type: 'number' });
export const bool = (description?: string): Schema => (description ? { type: 'boolean', description } : { type: 'boolean' });
export const arr = (items: Schema, description?: string): Schema =>
  description ? { type: 'array', items, description } : { type: 'array', items };
export const anyObject = (description?: string): Schema => (description ? { type: 'object', description } : { type: 'object' });
export const constant = (value: string): Schema => ({ type: 'string', enum: [value] });
export const oneOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
export function obj(properties: Record<string, Schema>, required: readonly string[] = Object.keys(properties)): Schema {
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

const ajv = new Ajv({ allErrors: true, strict: true });
const MAX_CACHED_VALIDATORS = 256;
const validators = new BoundedCache<string, ValidateFunction>('argument_validators', MAX_CACHED_VALIDATORS);

/**
 * Descriptions do not change what validates, so schemas that differ only in them share one
 * compiled validator. Keys under `properties` are argument names, not annotations, and stay.
 */
function shape(schema: unknown, namesHere = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => shape(s));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!namesHere && (k === 'description' || k === 'title')) continue;
    out[k] = shape(v, !namesHere && k === 'properties');
  }
  return out;
}

// Catalogs are cached (see catalogFor), so the same schema object comes back call after call.
const validatorOfSchema = new WeakMap<Schema, ValidateFunction>();

function validatorFor(schema: Schema): ValidateFunction {
  const known = validatorOfSchema.get(schema);
  if (known) return known;
  const stripped = shape(schema) as Schema;
  const key = JSON.stringify(stripped);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(stripped);
    validators.set(key, validate);
  }
  validatorOfSchema.set(schema, validate);
  return validate;
}

interface ArgumentError {
  argument: string;
  keyword: string;
  message: string;
}

function argumentPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

const TYPE_WORDS: Record<string, string> = { string: 'a string', object: 'an object', integer: 'an integer', array: 'an array' };

function describeError(e: ErrorObject): ArgumentError {
  const argument = argumentPath(e.instancePath);
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    const extra = String(params.additionalProperty);
    const full = argument ? `${argument}.${extra}` : extra;
    return { argument: full, keyword: e.keyword, message: `unknown argument '${full}'` };
  }
  const subject = argument ? `argument '${argument}'` : 'arguments';
  if (e.keyword === 'type') {
    const type = String(params.type);
    return { argument, keyword: e.keyword, message: `${subject} must be ${TYPE_WORDS[type] ?? type}` };
  }
  if (e.keyword === 'maxLength') {
    return { argument, keyword: e.keyword, message: `${subject} must be at most ${String(params.limit)} characters` };
  }
  if (e.keyword === 'maxProperties') {
    return { argument, keyword: e.keyword, message: `${subject} must have at most ${String(params.limit)} entries` };
  }
  return { argument, keyword: e.keyword, message: `${subject} ${e.message ?? 'is invalid'}` };
}

/**
 * Checks `args` against `schema` and returns them typed; a missing arguments object counts
 * as empty because MCP lets clients omit it.
 */
export function validateArgs<T>(schema: Schema, args: unknown, what: string, details: Record<string, unknown>): T {
  const value = args === undefined ? {} : args;
  const validate = validatorFor(schema);
  if (validate(value)) return value as T;
  const errors = (validate.errors ?? []).map(describeError);
  const message = `invalid arguments for ${what}: ${errors.map((e) => e.message).join('; ')}`;
  throw new AppError('VALIDATION_ERROR', message, { ...details, errors });
}
