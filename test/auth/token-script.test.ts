import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createAuthenticator } from '../../src/auth/verify.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-script-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function token(args: string[], env: Record<string, string> = {}) {
  const { NODE_ENV: _ignored, ...inherited } = process.env;
  return run(tsx, ['scripts/token.ts', ...args], { cwd: root, env: { ...inherited, DATA_DIR: dataDir, ...env } });
}

async function exitCode(promise: Promise<unknown>): Promise<{ code: unknown; stderr: string }> {
  const err = (await promise.then(
    () => ({ code: 0, stderr: '' }),
    (e: unknown) => e,
  )) as { code: unknown; stderr: string };
  return { code: err.code, stderr: err.stderr };
}

describe('scripts/token.ts', () => {
  it('prints one token that the development issuer accepts', async () => {
    const { stdout } = await token(['--email', 'a@example.com', '--name', 'Ada', '--expires', '600']);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);

    const auth = await createAuthenticator({ devAuth: true, dataDir, production: false });
    await expect(auth.verifyAuthorization(`Bearer ${lines[0]}`)).resolves.toEqual({
      issuer: 'urn:workflow-service:dev',
      subject: 'dev|a@example.com',
      email: 'a@example.com',
      issuedAt: expect.any(Number),
      name: 'Ada',
    });
  });

  it('says on stderr which DATA_DIR and key signed it, and that a service with another DATA_DIR refuses it', async () => {
    const first = await token(['--email', 'a@example.com']);
    expect(first.stderr).toContain(`under ${path.resolve(dataDir)}`);
    expect(first.stderr).toContain('That key was made just now: no service has used this DATA_DIR yet.');
    expect(first.stderr).toContain('A service started with another DATA_DIR refuses it with 401');
    const { kid } = JSON.parse(Buffer.from(first.stdout.split('.')[0]!, 'base64url').toString()) as { kid: string };
    expect(first.stderr).toContain(`key ${kid} `);
    // The key kept: no longer new.
    const second = await token(['--email', 'a@example.com']);
    expect(second.stderr).toContain(`key ${kid} `);
    expect(second.stderr).not.toContain('made just now');
  });

  it('exits 2 with usage when --email is missing or invalid', async () => {
    const missing = await exitCode(token([]));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--email is required[\s\S]*usage:/);

    const invalid = await exitCode(token(['--email', 'not-an-address']));
    expect(invalid.code).toBe(2);

    const badExpiry = await exitCode(token(['--email', 'a@example.com', '--expires', 'soon']));
    expect(badExpiry.code).toBe(2);
  });

  it('refuses to run with NODE_ENV=production', async () => {
    const result = await exitCode(token(['--email', 'a@example.com'], { NODE_ENV: 'production' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/NODE_ENV=production/);
  });

  it('agrees on one key when several processes start on a fresh data directory', async () => {
    const outputs = await Promise.all(Array.from({ length: 4 }, (_, i) => token(['--email', `user${i}@example.com`])));
    const auth = await createAuthenticator({ devAuth: true, dataDir, production: false });
    for (const [i, { stdout }] of outputs.entries()) {
      await expect(auth.verifyAuthorization(`Bearer ${stdout.trim()}`)).resolves.toMatchObject({ subject: `dev|user${i}@example.com` });
    }
  });
});
