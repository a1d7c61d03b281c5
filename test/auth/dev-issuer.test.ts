import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { decodeProtectedHeader, decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors.js';
import { DEV_AUDIENCE, DEV_ISSUER, loadOrCreateDevIssuerKey, signDevToken } from '../../src/auth/dev-issuer.js';
import { createAuthenticator, type AuthConfig } from '../../src/auth/verify.js';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-dev-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const devConfig = (): AuthConfig => ({ devAuth: true, dataDir, production: false });

describe('development issuer', () => {
  it('verifies the tokens it signs', async () => {
    const auth = await createAuthenticator(devConfig());
    const token = await signDevToken(dataDir, { email: 'Alice@Example.com', name: 'Alice' });
    await expect(auth.verifyAuthorization(`Bearer ${token}`)).resolves.toEqual({
      issuer: DEV_ISSUER,
      subject: 'dev|alice@example.com',
      email: 'Alice@Example.com',
      name: 'Alice',
      issuedAt: expect.any(Number),
    });
  });

  it('signs the documented claims and header', async () => {
    const token = await signDevToken(dataDir, { email: 'bob@example.com', sub: 'bob-1', expiresInSeconds: 600 });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ iss: DEV_ISSUER, aud: DEV_AUDIENCE, sub: 'bob-1', email: 'bob@example.com' });
    expect(claims.exp! - claims.iat!).toBe(600);
    const { kid } = await loadOrCreateDevIssuerKey(dataDir);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', kid });
  });

  it('defaults to a 24 hour lifetime', async () => {
    const claims = decodeJwt(await signDevToken(dataDir, { email: 'bob@example.com' }));
    expect(claims.exp! - claims.iat!).toBe(24 * 3600);
  });

  it('keeps the private key readable by its owner only and publishes the public key with a kid', async () => {
    await createAuthenticator(devConfig());
    const dir = path.join(dataDir, 'dev-issuer');
    const privateStat = await stat(path.join(dir, 'private.jwk.json'));
    expect(privateStat.mode & 0o777).toBe(0o600);
    const publicJwk = JSON.parse(await readFile(path.join(dir, 'public.jwk.json'), 'utf8')) as Record<string, unknown>;
    expect(publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(publicJwk.kid).toEqual(expect.any(String));
    expect(publicJwk).not.toHaveProperty('d');
  });

  it('reuses the key across authenticators on the same data directory', async () => {
    const first = await createAuthenticator(devConfig());
    const token = await signDevToken(dataDir, { email: 'carol@example.com' });
    await expect(first.verifyAuthorization(`Bearer ${token}`)).resolves.toMatchObject({ subject: 'dev|carol@example.com' });
    first.close?.();

    const second = await createAuthenticator(devConfig());
    await expect(second.verifyAuthorization(`Bearer ${token}`)).resolves.toMatchObject({ subject: 'dev|carol@example.com' });
  });

  it('rejects tokens from another data directory key', async () => {
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'auth-dev-other-'));
    try {
      const foreign = await signDevToken(otherDir, { email: 'mallory@example.com' });
      const auth = await createAuthenticator(devConfig());
      const err = await auth.verifyAuthorization(`Bearer ${foreign}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('UNAUTHORIZED');
      expect((err as AppError).details).toEqual({ reason: 'signature' });
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('ends concurrent first starts with one key and no leftover temp files', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateDevIssuerKey(dataDir)));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);

    const auths = await Promise.all(Array.from({ length: 8 }, () => createAuthenticator(devConfig())));
    const token = await signDevToken(dataDir, { email: 'dave@example.com' });
    for (const auth of auths) {
      await expect(auth.verifyAuthorization(`Bearer ${token}`)).resolves.toMatchObject({ subject: 'dev|dave@example.com' });
    }
    expect((await readdir(path.join(dataDir, 'dev-issuer'))).sort()).toEqual(['private.jwk.json', 'public.jwk.json']);
  });

  it('all concurrent authenticators on a fresh directory accept the same token', async () => {
    const auths = await Promise.all(Array.from({ length: 6 }, () => createAuthenticator(devConfig())));
    const token = await signDevToken(dataDir, { email: 'erin@example.com' });
    const results = await Promise.all(auths.map((a) => a.verifyAuthorization(`Bearer ${token}`)));
    expect(results.every((r) => r.subject === 'dev|erin@example.com')).toBe(true);
  });

  it('refuses a corrupt key file with a clear message instead of replacing it', async () => {
    await loadOrCreateDevIssuerKey(dataDir);
    await writeFile(path.join(dataDir, 'dev-issuer', 'private.jwk.json'), '{"kty":');
    await expect(createAuthenticator(devConfig())).rejects.toThrow(/not a valid ES256 private JWK/);
  });

  it('refuses nonsense lifetimes', async () => {
    await expect(signDevToken(dataDir, { email: 'a@example.com', expiresInSeconds: 0 })).rejects.toThrow(/positive/);
    await expect(signDevToken(dataDir, { email: 'a@example.com', expiresInSeconds: 1.5 })).rejects.toThrow(/positive/);
  });
});
