import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('the dashboard GraphQL documents', () => {
  it('are typed by GraphQL Code Generator from schema.graphql, and the committed output is current (npm run generate)', async () => {
    const { generate } = await import('@graphql-codegen/cli');
    const config = (await import('../../codegen.js')).default;
    const outputs = await generate({ ...config, silent: true }, false);
    expect(outputs.map((o: { filename: string }) => o.filename).sort()).toEqual([
      'web/src/gql/gql.ts',
      'web/src/gql/graphql.ts',
      'web/src/gql/index.ts',
    ]);
    for (const output of outputs) {
      expect(readFileSync(output.filename, 'utf8'), `${output.filename} is stale: run npm run generate`).toBe(output.content);
    }
  }, 60_000);
});

describe('the dashboard code', () => {
  it('reaches the service only through api.ts, with generated documents', async () => {
    const { readdirSync } = await import('node:fs');
    const files = (readdirSync('web/src', { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !f.startsWith('gql'));
    for (const file of files) {
      const text = readFileSync(`web/src/${file}`, 'utf8');
      if (file !== 'api.ts') expect(text, file).not.toMatch(/\bfetch\(|'\/graphql'/);
      // Every operation is written inside graphql(`…`), the generated typed function.
      for (const match of text.matchAll(/`\s*(query|mutation|subscription) \w+/g)) {
        expect(text.slice(Math.max(0, match.index - 10), match.index), `${file}: an operation outside graphql()`).toContain('graphql(');
      }
    }
  });
});
