/**
 * Manifest validation: the published JSON Schema first, then the semantic checks,
 * every problem reported in one answer so a client can fix them all in one round.
 */
import AjvModule from 'ajv';
import { parseDocument } from 'yaml';
import { AppError } from '../errors.js';
import type { ManifestError, WorkflowManifest } from './types.js';
import { MANIFEST_LIMITS, manifestBytes } from './limits.js';
import { comparePointers, describeValue, isRecord } from './messages.js';
import { manifestSchema } from './schema.js';
import { mapSchemaErrors } from './schema-errors.js';
import { semanticErrors } from './semantic.js';

export { manifestSchemaDocument } from './schema.js';

export type ManifestValidation = { valid: true; manifest: WorkflowManifest; errors: [] } | { valid: false; errors: ManifestError[] };

// ajv is CommonJS: under NodeNext the default import is its module.exports, whose
// `default` property is the class (the same function at run time).
const Ajv = AjvModule.default;

// `verbose` gives each error the offending value and its schema, which the messages quote.
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true });
const checkSchema = ajv.compile(manifestSchema);

function byPathThenCode(a: ManifestError, b: ManifestError): number {
  return comparePointers(a.path, b.path) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

export function validateManifest(input: unknown): ManifestValidation {
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

interface YamlProblem {
  message: string;
  line?: number;
  column?: number;
}

function yamlFailure(problems: YamlProblem[]): AppError {
  const first = problems[0]!;
  return new AppError('VALIDATION_ERROR', `the manifest is not valid YAML: ${first.message}`, {
    errors: problems.map((p) => ({ path: '', ...p })),
  });
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
    if (ancestors.has(value)) throw yamlFailure([{ message: `${at()} is an alias of a node that contains it` }]);
    if (path.length >= MAX_YAML_DEPTH) throw yamlFailure([{ message: `${at()} nests more than ${MAX_YAML_DEPTH} levels deep` }]);
    ancestors = new Set(ancestors).add(value);
  }
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw yamlFailure([{ message: `${at()} is ${String(value)}, which JSON cannot represent` }]);
  }
  if (Array.isArray(value)) return value.map((v, i) => toJsonData(v, [...path, i], ancestors));
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      if (k !== null && typeof k === 'object') {
        throw yamlFailure([{ message: `${at()} has a key that is not a scalar; keys must be strings` }]);
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
  throw yamlFailure([{ message: `${at()} holds a value that is not JSON data (a YAML tag such as !!binary?)` }]);
}

/**
 * Accepts a manifest as JSON data or as a YAML string (YAML being a superset of JSON,
 * a JSON string works too). Anything else is returned untouched for validateManifest to judge.
 */
export function parseManifestInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  const doc = parseDocument(input, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw yamlFailure(
      doc.errors.map((e) => ({
        // prettyErrors appends the source excerpt after the first line; the position is enough.
        message: e.message.split('\n')[0]!.replace(/:$/, ''),
        line: e.linePos?.[0].line,
        column: e.linePos?.[0].col,
      })),
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES, mapAsMap: true });
  } catch (err) {
    throw yamlFailure([{ message: err instanceof Error ? err.message : String(err) }]);
  }
  return toJsonData(data, []);
}
