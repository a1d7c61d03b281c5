import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../codegen.js';

describe('runtime and generated files', () => {
  it('runs on Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });

  it('schema.graphql and docs/openapi.json are up to date (npm run generate prints them)', () => {
    for (const [file, content] of Object.entries(generatedFiles())) {
      const committed = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(committed, `${file} is stale: run npm run generate`).toBe(content);
    }
  });

  it('prisma/schema.prisma and prisma/migrations agree', () => {
    const result = spawnSync(process.execPath, ['scripts/prisma.mjs', 'check'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    });
    expect(result.stdout + result.stderr).toContain('agree');
    expect(result.status).toBe(0);
  }, 60_000);

  it('the token script prints a token', () => {
    const out = execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/token.ts', '--email', 'script@example.com'], {
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: `${process.env.TMPDIR ?? '/tmp'}/wf-token-${process.pid}` },
    });
    expect(out.trim().split('.')).toHaveLength(3);
  });
});
