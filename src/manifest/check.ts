/**
 * The manifest's checks without a compiled schema of their own: the service runs them with ajv's
 * compiled schema (validate.ts), the dashboard with the standalone code ajv generates from the same
 * schema at build time (the dashboard's CSP forbids eval). One rule, one place, for both.
 */
import type { ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import type { ManifestError, WorkflowManifest } from './types.js';
import { MANIFEST_LIMITS, manifestBytes } from './limits.js';
import { comparePointers, describeValue, isRecord } from './messages.js';
import { mapSchemaErrors } from './schema-errors.js';
import { semanticErrors } from './semantic.js';

export type ManifestValidation = { valid: true; manifest: WorkflowManifest; errors: [] } | { valid: false; errors: ManifestError[] };

/** A compiled JSON Schema check: ajv's, or its standalone code. */
export interface SchemaCheck {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The options the schema is compiled with, on the service and in the dashboard's build alike. */
export const MANIFEST_AJV_OPTIONS = { allErrors: true, verbose: true, strict: true } as const;

function byPathThenCode(a: ManifestError, b: ManifestError): number {
  return comparePointers(a.path, b.path) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

export function checkManifest(input: unknown, checkSchema: SchemaCheck): ManifestValidation {
  if (!isRecord(input)) {
    return {
      valid: false,
      errors: [{ path: '', code: 'invalid_type', message: `a manifest must be a JSON object, got ${describeValue(input)}` }],
    };
  }
  // Checked first and alone: the other checks of an oversized document would only add noise.
  const bytes = manifestBytes(input);
  if (bytes > MANIFEST_LIMITS.maxBytes) {
    return {
      valid: false,
      errors: [
        { path: '', code: 'too_large', message: `the manifest is ${bytes} bytes of JSON; at most ${MANIFEST_LIMITS.maxBytes} are allowed` },
      ],
    };
  }
  const errors = checkSchema(input) ? [] : mapSchemaErrors(checkSchema.errors ?? [], input);
  errors.push(...semanticErrors(input));
  if (errors.length === 0) return { valid: true, manifest: input as unknown as WorkflowManifest, errors: [] };
  return { valid: false, errors: errors.sort(byPathThenCode) };
}

/** Expanding more aliases than this is what "billion laughs" documents do; real manifests need few. */
const MAX_YAML_ALIASES = 100;
/** As for JSON bodies (src/http/body.ts): deeper data would overflow the recursive checks below and after. */
const MAX_YAML_DEPTH = 100;

export interface YamlProblem {
  message: string;
  line?: number;
  column?: number;
}

/** Text that is not YAML (or not JSON data): each problem with its line and column when known. */
export class YamlProblems extends Error {
  constructor(readonly problems: YamlProblem[]) {
    const first = problems[0]!;
    // The position once: in the sentence, and as line and column of each problem (not in its message too).
    super(`the manifest is not valid YAML: ${first.message}${first.line ? ` at line ${first.line}, column ${first.column ?? 1}` : ''}`);
  }
}

/**
 * YAML has values JSON lacks (binary, infinities, maps with non-scalar keys); a manifest
 * must stay plain JSON data so that its JSON and YAML forms say the same thing.
 */
function toJsonData(value: unknown, path: Array<string | number>, ancestors: ReadonlySet<unknown> = new Set()): unknown {
  const at = () =>
    path.length === 0 ? 'the manifest' : path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'object') {
    // An alias to a node that contains it (`a: &a [*a]`) makes a cycle JSON cannot hold.
    if (ancestors.has(value)) throw new YamlProblems([{ message: `${at()} is an alias of a node that contains it` }]);
    if (path.length >= MAX_YAML_DEPTH) throw new YamlProblems([{ message: `${at()} nests more than ${MAX_YAML_DEPTH} levels deep` }]);
    ancestors = new Set(ancestors).add(value);
  }
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new YamlProblems([{ message: `${at()} is ${String(value)}, which JSON cannot represent` }]);
  }
  if (Array.isArray(value)) return value.map((v, i) => toJsonData(v, [...path, i], ancestors));
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      if (k !== null && typeof k === 'object') {
        throw new YamlProblems([{ message: `${at()} has a key that is not a scalar; keys must be strings` }]);
      }
      const key = String(k);
      // defineProperty keeps a "__proto__" key an ordinary property, as JSON.parse does.
      Object.defineProperty(out, key, {
        value: toJsonData(v, [...path, key], ancestors),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  throw new YamlProblems([{ message: `${at()} holds a value that is not JSON data (a YAML tag such as !!binary?)` }]);
}

/**
 * Reads a manifest written as YAML (or JSON, which YAML reads too) into JSON data; throws
 * YamlProblems for text that is not.
 */
export function readManifestText(input: string): unknown {
  const doc = parseDocument(input, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new YamlProblems(
      doc.errors.map((e) => ({
        // prettyErrors appends the source excerpt after the first line, and the position to it:
        // the position is given as line and column, so the message says it only once.
        message: e.message
          .split('\n')[0]!
          .replace(/:$/, '')
          .replace(/ at line \d+, column \d+$/, ''),
        line: e.linePos?.[0].line,
        column: e.linePos?.[0].col,
      })),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES, mapAsMap: true });
  } catch (err) {
    throw new YamlProblems([{ message: err instanceof Error ? err.message : String(err) }]);
  }
  return toJsonData(data, []);
}
