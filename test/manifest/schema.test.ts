import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest/schema.js';
import { ADAPTERS, OUTPUT_TYPES, STEP_ACTIONS, STEP_ID_PATTERN } from '../../src/manifest/types.js';
import { manifestSchemaDocument } from '../../src/manifest/validate.js';

type Node = Record<string, any>;
const schema = manifestSchema as Node;

describe('manifest JSON Schema', () => {
  it('is a valid draft-07 schema', () => {
    const ajv = new AjvModule.default({ strict: true });
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(ajv.validateSchema(schema)).toBe(true);
  });

  it('carries the placeholder $id, ending in the v1.0 segment', () => {
    expect(schema.$id).toBe('https://schemas.invalid/manifest/v1.0');
  });

  it('agrees with the constants of types.ts', () => {
    expect(schema.definitions.step.properties.action.enum).toEqual([...STEP_ACTIONS]);
    expect(schema.definitions.step.properties.id.pattern).toBe(STEP_ID_PATTERN.source);
    expect(schema.properties.outputs.properties.type.enum).toEqual([...OUTPUT_TYPES]);
    expect(Object.keys(schema.properties.adapters.properties)).toEqual([...ADAPTERS]);
    expect(STEP_ACTIONS).toHaveLength(32);
  });

  it('rejects unknown properties everywhere but context, parameters and outputs.schema', () => {
    const open: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Node;
      if (n.type === 'object' && n.additionalProperties !== false && !n.additionalProperties?.$ref) open.push(path);
      for (const [k, v] of Object.entries(n)) walk(v, `${path}/${k}`);
    };
    walk(schema, '');
    expect(open.sort()).toEqual([
      '/definitions/step/properties/parameters',
      '/properties/context',
      '/properties/outputs/properties/schema',
    ]);
  });
});

describe('manifestSchemaDocument', () => {
  it('sets $id to the served address', () => {
    const doc = manifestSchemaDocument('https://api.example.com/schemas/manifest/v1.0') as Node;
    expect(doc.$id).toBe('https://api.example.com/schemas/manifest/v1.0');
    expect({ ...doc, $id: schema.$id }).toEqual(schema);
  });

  it('returns a deep copy each time', () => {
    const doc = manifestSchemaDocument('https://a.example/schemas/manifest/v1.0') as Node;
    doc.definitions.step.properties.action.enum.push('mutated');
    expect(schema.definitions.step.properties.action.enum).not.toContain('mutated');
    expect(schema.$id).toBe('https://schemas.invalid/manifest/v1.0');
  });
});
