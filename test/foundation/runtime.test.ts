import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
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

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:4000/v1',
      databaseUrl: null,
      dataDir: './.data',
      redisUrl: null,
      devAuth: true,
      logLevel: 'info',
    });
    expect(c.bodyLimitBytes).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it('refuses production without an identity provider, naming the variables', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (error) {
      expect((error as Error).message).toMatch(/OIDC_ISSUER, OIDC_AUDIENCE, OIDC_JWKS_URL/);
    }
  });

  it('refuses DEV_AUTH=on in production and reports every problem at once', () => {
    try {
      loadConfig({ NODE_ENV: 'production', DEV_AUTH: 'on', PORT: 'abc', PUBLIC_BASE_URL: 'http://x.example/api' });
      expect.unreachable();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/DEV_AUTH=on is refused/);
      expect(problems).toMatch(/PORT must be an integer/);
      expect(problems).toMatch(/PUBLIC_BASE_URL must end in \/v1/);
    }
  });

  it('reads OIDC settings and a PostgreSQL URL', () => {
    const c = loadConfig({
      OIDC_ISSUER: 'https://idp.example/',
      OIDC_AUDIENCE: 'wf',
      OIDC_JWKS_URL: 'https://idp.example/jwks',
      DATABASE_URL: 'postgres://u@db/x',
      PUBLIC_BASE_URL: 'https://api.example.com/v1/',
    });
    expect(c.oidc).toEqual({ issuer: 'https://idp.example/', audience: 'wf', jwksUrl: 'https://idp.example/jwks' });
    expect(c.databaseUrl).toBe('postgres://u@db/x');
    expect(c.publicBaseUrl).toBe('https://api.example.com/v1');
  });
});
