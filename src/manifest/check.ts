/**
 * The manifest's checks without a compiled schema of their own: the service runs them with ajv's
 * compiled schema (validate.ts), the dashboard with the standalone code ajv generates from the same
 * schema at build time (the dashboard's CSP forbids eval). One rule, one place, for both.
 */
import type { ErrorObject } from 'ajv';
import type { ManifestError, WorkflowManifest } from './types.js';
import { MANIFEST_LIMITS, manifestBytes } from './limits.js';
import { comparePointers, describeValue, isRecord } from './messages.js';
import { mapSchemaErrors } from './schema-errors.js';
import { semanticErrors } from './semantic.js';

export { readManifestText, YamlProblems } from './yaml-text.js';

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
  const steps = input.steps;
  if (Array.isArray(steps) && steps.length > MANIFEST_LIMITS.maxSteps) {
    return {
      valid: false,
      errors: [
        {
          path: '/steps',
          code: 'too_large',
          message: `the manifest has ${steps.length} steps; at most ${MANIFEST_LIMITS.maxSteps} are allowed`,
        },
      ],
    };
  }
  const errors = checkSchema(input) ? [] : mapSchemaErrors(checkSchema.errors ?? [], input);
  errors.push(...semanticErrors(input));
  if (errors.length === 0) return { valid: true, manifest: input as unknown as WorkflowManifest, errors: [] };
  return { valid: false, errors: errors.sort(byPathThenCode) };
}
