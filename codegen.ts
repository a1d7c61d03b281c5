/**
 * npm run generate — prints the generated files that are committed: schema.graphql and
 * docs/openapi.json. A test fails when either is stale, so API changes show in review.
 */
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { printableSchema, getSchema } from './src/graphql/schema.js';
import { compileRouter } from './src/rest/executor.js';
import { openApiDocument } from './src/rest/openapi.js';
import { routes } from './src/rest/routes.js';

export const DOCUMENTED_BASE_URL = 'http://localhost:4000/v1';

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
}
