/**
 * Manifest validation: the published JSON Schema first, then the semantic checks,
 * every problem reported in one answer so a client can fix them all in one round
 * (the checks themselves are in check.ts, shared with the dashboard).
 */
import AjvModule from 'ajv';
import { AppError } from '../errors.js';
import { checkManifest, MANIFEST_AJV_OPTIONS, readManifestText, YamlProblems, type ManifestValidation } from './check.js';
import { manifestSchema } from './schema.js';

export { manifestSchemaDocument } from './schema.js';
export type { ManifestValidation } from './check.js';

// ajv is CommonJS: under NodeNext the default import is its module.exports, whose
// `default` property is the class (the same function at run time).
const Ajv = AjvModule.default;

// `verbose` gives each error the offending value and its schema, which the messages quote.
const ajv = new Ajv(MANIFEST_AJV_OPTIONS);
const checkSchema = ajv.compile(manifestSchema);

export function validateManifest(input: unknown): ManifestValidation {
  return checkManifest(input, checkSchema);
}

/**
 * Accepts a manifest as JSON data or as a YAML string (YAML being a superset of JSON,
 * a JSON string works too). Anything else is returned untouched for validateManifest to judge.
 */
export function parseManifestInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return readManifestText(input);
  } catch (error) {
    if (!(error instanceof YamlProblems)) throw error;
    throw new AppError('VALIDATION_ERROR', error.message, { errors: error.problems.map((p) => ({ path: '', ...p })) });
  }
}
