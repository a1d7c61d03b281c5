/**
 * Turns ajv's errors into the manifest's error codes, one error per problem and with
 * messages a person can act on. Needs ajv's `verbose` output (`data`, `parentSchema`).
 */
import type { ErrorObject } from 'ajv';
import type { ManifestError } from './types.js';
import { MANIFEST_VERSION } from './types.js';
import { describeValue, isRecord, place, pointer, pointerSegments, quoteList, suggestion, where } from './messages.js';

const REQUIRED_STRINGS = new Set(['/name', '/intent']);

function isStepField(path: string, field: string): boolean {
  const segs = pointerSegments(path);
  return segs.length === 3 && segs[0] === 'steps' && /^\d+$/.test(segs[1]!) && segs[2] === field;
}

function expected(schema: unknown, typeName: string): string {
  if (typeName === 'array' && isRecord(schema) && isRecord(schema.items) && schema.items.type === 'string') {
    return 'an array of strings';
  }
  return typeName === 'array' || typeName === 'object' || typeName === 'integer' ? `an ${typeName}` : `a ${typeName}`;
}

function typeError(e: ErrorObject, input: unknown): ManifestError {
  const path = e.instancePath;
  const want = expected(e.parentSchema, String(e.params.type));
  let message = `${place(path, input)} must be ${want}, got ${describeValue(e.data)}`;
  if (path === '/manifest_version') message += `; write it in quotes: "${MANIFEST_VERSION}"`;
  return { path, code: 'invalid_type', message };
}

function enumError(e: ErrorObject, input: unknown): ManifestError {
  const path = e.instancePath;
  const allowed = (e.params.allowedValues as unknown[]).map(String);
  const got = String(e.data);
  if (path === '/manifest_version') {
    return {
      path,
      code: 'unsupported_manifest_version',
      message: `manifest_version '${got}' is not supported; the only supported version is '${MANIFEST_VERSION}'`,
    };
  }
  const hint = suggestion(got, allowed);
  if (isStepField(path, 'action')) {
    return {
      path,
      code: 'unknown_action',
      message: `${place(path, input)}: '${got}' is not a known action` + (hint || `; allowed actions: ${quoteList(allowed)}`),
    };
  }
  return {
    path,
    code: 'invalid_value',
    message: `${place(path, input)}: '${got}' is not allowed; allowed values: ${quoteList(allowed)}${hint}`,
  };
}

function requiredError(e: ErrorObject, input: unknown): ManifestError {
  const field = String(e.params.missingProperty);
  const path = e.instancePath + pointer(field);
  // The step note would print the id the step lacks, so only name the index then.
  const owner = field === 'id' ? where(e.instancePath, input) : place(e.instancePath, input);
  return { path, code: 'missing_required_field', message: `${owner} is missing the required field '${field}'` };
}

function additionalPropertyError(e: ErrorObject, input: unknown): ManifestError {
  const property = String(e.params.additionalProperty);
  const path = e.instancePath + pointer(property);
  const known = isRecord(e.parentSchema) && isRecord(e.parentSchema.properties) ? Object.keys(e.parentSchema.properties) : [];
  const hint = suggestion(property, known);
  return {
    path,
    code: 'unknown_property',
    message:
      `${place(e.instancePath, input)} has an unknown property '${property}'` +
      (hint || (known.length > 0 ? `; allowed properties: ${quoteList(known)}` : '')),
  };
}

function toManifestError(e: ErrorObject, input: unknown): ManifestError {
  const path = e.instancePath;
  switch (e.keyword) {
    case 'type':
      return typeError(e, input);
    case 'enum':
      return enumError(e, input);
    case 'required':
      return requiredError(e, input);
    case 'additionalProperties':
      return additionalPropertyError(e, input);
    case 'minItems':
      if (path === '/steps') {
        return { path, code: 'missing_required_field', message: 'a manifest needs at least one step' };
      }
      break;
    case 'minLength':
      // A blank name or intent is as unusable as a missing one, so it gets the same code.
      if (REQUIRED_STRINGS.has(path) || isStepField(path, 'name')) {
        return { path, code: 'missing_required_field', message: `${place(path, input)} must not be empty` };
      }
      break;
    case 'pattern':
      if (isStepField(path, 'id')) {
        return {
          path,
          code: 'invalid_step_id',
          message:
            `${where(path, input)} '${String(e.data)}' is not a valid step id: ` +
            'use only lowercase letters, digits and underscores, starting with a lowercase letter',
        };
      }
      break;
    case 'minimum':
      return {
        path,
        code: 'invalid_value',
        message: `${place(path, input)} must be at least ${String(e.params.limit)}, got ${describeValue(e.data)}`,
      };
  }
  return { path, code: 'invalid_value', message: `${place(path, input)} ${e.message ?? 'is not valid'}` };
}

/**
 * When a value has the wrong type, ajv also reports every other keyword it fails
 * (enum, pattern...); those say nothing more, so only the type error is kept.
 */
export function mapSchemaErrors(errors: readonly ErrorObject[], input: unknown): ManifestError[] {
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  return errors.filter((e) => e.keyword === 'type' || !wrongType.has(e.instancePath)).map((e) => toManifestError(e, input));
}
