import checkSchema from 'virtual:manifest-schema-check';
import { checkManifest, readManifestText, YamlProblems } from '../../../src/manifest/check';

/** A problem of the manifest: a JSON pointer (the validator's path) or, for text that is not YAML, a line. */
export interface Problem {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/**
 * The manifest checked in the browser with the service's own checks (its module, its schema), so
 * typing costs no request; the service checks again when the workflow is saved.
 */
export function validateManifestText(text: string): Problem[] {
  let data: unknown;
  try {
    data = readManifestText(text);
  } catch (error) {
    if (error instanceof YamlProblems) return error.problems.map((p) => ({ path: '', ...p, message: `not valid YAML: ${p.message}` }));
    throw error;
  }
  const result = checkManifest(data, checkSchema);
  return result.valid ? [] : result.errors.map((e) => ({ path: e.path, message: e.message }));
}
