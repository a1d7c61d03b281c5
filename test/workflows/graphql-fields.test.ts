import type { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../src/graphql/schema.js';

describe('the views of a workflow', () => {
  it('read the columns kept under their own names with no resolver, so graphql-jit reads them inline', () => {
    const schema = getSchema();
    const columns: [string, string[]][] = [
      ['Workflow', ['name', 'description', 'visibility', 'category', 'tags', 'currentVersion', 'allowForks']],
      ['MarketplaceWorkflow', ['name', 'description', 'visibility', 'category', 'tags', 'currentVersion']],
      ['DeploymentWorkflow', ['name']],
    ];
    for (const [type, names] of columns) {
      const fields = (schema.getType(type) as GraphQLObjectType).getFields();
      for (const name of names) {
        expect(fields[name], `${type}.${name}`).toBeDefined();
        expect(fields[name]!.resolve, `${type}.${name}`).toBeUndefined();
      }
    }
  });
});
