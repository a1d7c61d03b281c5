/**
 * npm run generate — prints the generated files that are committed: schema.graphql,
 * docs/openapi.json and the dashboard's typed GraphQL documents (web/src/gql/, GraphQL Code
 * Generator's client preset over schema.graphql). A test fails when any is stale, so API changes
 * show in review.
 */
import { writeFileSync } from 'node:fs';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { printableSchema, getSchema } from './src/graphql/schema.js';
import { compileRouter } from './src/rest/executor.js';
import { openApiDocument } from './src/rest/openapi.js';
import { routes } from './src/rest/routes.js';

export const DOCUMENTED_BASE_URL = 'http://127.0.0.1:4000/v1';

/** GraphQL Code Generator's configuration: the dashboard's documents, typed against schema.graphql. */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['web/src/**/*.{ts,tsx}', '!web/src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    'web/src/gql/': {
      preset: 'client',
      // Documents travel as strings: the page needs no GraphQL library at run time.
      config: { documentMode: 'string', useTypeImports: true, enumsAsTypes: true, scalars: { JSON: 'unknown' } },
      presetConfig: { fragmentMasking: false },
    },
  },
};
export default config;

export function generatedFiles(): Record<string, string> {
  const schema = getSchema();
  return {
    'schema.graphql': `${printSchema(printableSchema())}\n`,
    'docs/openapi.json': `${JSON.stringify(openApiDocument(compileRouter(schema, routes), schema, DOCUMENTED_BASE_URL), null, 2)}\n`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [file, content] of Object.entries(generatedFiles())) {
    writeFileSync(new URL(file, import.meta.url), content);
    console.log(`wrote ${file}`);
  }
  const { generate } = await import('@graphql-codegen/cli');
  for (const file of await generate({ ...config, silent: true }, true)) console.log(`wrote ${file.filename}`);
}
