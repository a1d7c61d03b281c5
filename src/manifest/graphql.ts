import { builder } from '../graphql/builder.js';
import { ADAPTERS, type ManifestError } from './types.js';
import { parseManifestInput, validateManifest } from './validate.js';

const ManifestErrorRef = builder.objectRef<ManifestError>('ManifestError').implement({
  description: 'One problem in a manifest: a JSON Pointer to where it is, its kind and a message a person can act on.',
  fields: (t) => ({
    path: t.exposeString('path'),
    code: t.exposeString('code'),
    message: t.exposeString('message'),
  }),
});

/** The three adapters of spec 2.8; shared by every type that enables or names adapters. */
export const AdapterRef = builder.enumType('Adapter', { values: ADAPTERS });

const ManifestValidationRef = builder.objectRef<{ valid: boolean; errors: ManifestError[] }>('ManifestValidation').implement({
  fields: (t) => ({
    valid: t.exposeBoolean('valid'),
    errors: t.field({ type: [ManifestErrorRef], resolve: (v) => v.errors }),
  }),
});

builder.mutationField('validateManifest', (t) =>
  t.field({
    type: ManifestValidationRef,
    description: 'Checks a manifest (a JSON object or a YAML string) without storing anything. REST: POST /v1/manifests/validate.',
    authScopes: { authenticated: true },
    args: { manifest: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args) => {
      const result = validateManifest(parseManifestInput(args.manifest));
      return { valid: result.valid, errors: result.errors };
    },
  }),
);
