import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { signDevToken } from '../src/auth/dev-issuer.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createTestDatabase } from './helpers/database.js';
import { serviceArgs } from './helpers/process.js';

describe('logging', () => {
  it('writes one JSON line per request with id, method, route, status, duration and user, never the token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'wf-log-'));
    const database = await createTestDatabase();
    const app = await createApp(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }), {
      database: database.db,
      logger: createLogger('info', sink),
    });
    const token = await signDevToken(dataDir, { email: 'log@example.com' });
    const res = await app.fetch(
      new Request('http://127.0.0.1/v1/users/me', { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'log-test-1' } }),
    );
    expect(res.status).toBe(200);
    await app.fetch(new Request('http://127.0.0.1/v1/users/me', { headers: { authorization: `Bearer ${token}x` } }));
    await app.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    const entries = lines.map((l) => JSON.parse(l));
    const entry = entries.find((e) => e.requestId === 'log-test-1');
    expect(entry).toMatchObject({ method: 'GET', route: 'GET /v1/users/me', status: 200, userId: expect.stringMatching(/^usr_/) });
    expect(typeof entry.durationMs).toBe('number');
    expect(entries.some((e) => e.status === 401)).toBe(true);
    for (const line of lines) expect(line).not.toContain(token.split('.')[2]!);
  });
});

describe('the service process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-proc-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on the embedded database, serves requests and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, serviceArgs('source'), {
      env: { ...process.env, DATABASE_URL: '', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line in time:\n${out}`)), 90_000);
      child.stdout.on('data', () => {
        const m = /workflow service ready on (http:\/\/[^"\s]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    expect(out).toContain('npm run token');
    // Started with the V8 flags npm start gives (src/runtime/v8-flags.ts): no warning about them.
    expect(out).not.toContain("started without the service's V8 flags");
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(200);
    const token = await signDevToken(dataDir, { email: 'proc@example.com' });
    const me = await fetch(`${origin}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).data.email).toBe('proc@example.com');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"msg":"stopped"');
  }, 150_000);

  it('refuses to start in production without an identity provider, naming the variables', async () => {
    const child = spawn(process.execPath, serviceArgs('source'), {
      env: { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir, OIDC_ISSUER: '', DEV_AUTH: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/OIDC_ISSUER, OIDC_AUDIENCE, OIDC_JWKS_URL/);
  }, 30_000);
});
