import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { base64url, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors.js';
import type { Authenticator } from '../../src/auth/verify.js';
import { AUDIENCE, ISSUER, KID, startFakeIdp, type FakeIdp } from '../helpers/identity-provider.js';

let idp: FakeIdp;
let auth: Authenticator;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-oidc-'));
  idp = await startFakeIdp();
  auth = await idp.authenticator(dataDir);
});

afterAll(async () => {
  auth?.close?.();
  await idp?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function rejection(header: string | null | undefined): Promise<AppError> {
  const err: unknown = await auth.verifyAuthorization(header).then(
    () => {
      throw new Error('expected the header to be rejected');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

async function expectInvalid(header: string, reason: string): Promise<AppError> {
  const err = await rejection(header);
  expect(err.code).toBe('UNAUTHORIZED');
  expect(err.status).toBe(401);
  expect(err.details).toEqual({ reason });
  expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  return err;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('OIDC mode', () => {
  it('accepts a token from the identity provider', async () => {
    const token = await idp.sign();
    await expect(auth.verifyAuthorization(`Bearer ${token}`)).resolves.toEqual({
      issuer: ISSUER,
      subject: 'user-123',
      email: 'alice@example.com',
      name: 'Alice',
      issuedAt: expect.any(Number),
    });
  });

  it('accepts a lower-case scheme and reports absent or non-string email and name as null', async () => {
    const token = await idp.sign({ email: 42, name: undefined });
    await expect(auth.verifyAuthorization(`bearer ${token}`)).resolves.toEqual({
      issuer: ISSUER,
      subject: 'user-123',
      email: null,
      name: null,
      issuedAt: expect.any(Number),
    });
  });

  it.each([null, undefined, '', '   '])('rejects a missing header (%j) with a plain Bearer challenge', async (header) => {
    const err = await rejection(header);
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.message).toBe('missing Authorization header: send Authorization: Bearer <ID token>');
    expect(err.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it.each(['Basic abc', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc', 'Bearerabc'])('rejects the malformed header %j', async (header) => {
    const err = await expectInvalid(header, 'malformed');
    expect(err.message).toMatch(/^malformed Authorization header/);
  });

  it('rejects a garbage token', async () => {
    await expectInvalid('Bearer not-a-jwt', 'malformed');
    await expectInvalid('Bearer a.b.c', 'malformed');
  });

  it('rejects a token signed by another key under the same kid', async () => {
    const other = await generateKeyPair('RS256');
    const token = await idp.sign({}, { kid: KID }, other.privateKey);
    const err = await expectInvalid(`Bearer ${token}`, 'signature');
    expect(err.message).not.toContain(token);
  });

  it('rejects a token naming a kid the identity provider does not publish', async () => {
    const other = await generateKeyPair('RS256');
    const token = await idp.sign({}, { kid: 'unknown-kid' }, other.privateKey);
    await expectInvalid(`Bearer ${token}`, 'signature');
  });

  it('rejects an expired token', async () => {
    const token = await idp.sign({ iat: nowSeconds() - 3 * 3600, exp: nowSeconds() - 2 * 3600 });
    const err = await expectInvalid(`Bearer ${token}`, 'expired');
    expect(err.message).toBe('the token has expired');
  });

  it('tolerates a little clock skew but not more than a minute', async () => {
    const slightlyExpired = await idp.sign({ exp: nowSeconds() - 30 });
    await expect(auth.verifyAuthorization(`Bearer ${slightlyExpired}`)).resolves.toMatchObject({ subject: 'user-123' });
    const expired = await idp.sign({ exp: nowSeconds() - 90 });
    await expectInvalid(`Bearer ${expired}`, 'expired');
  });

  it('rejects a token that is not valid yet (nbf)', async () => {
    const token = await idp.sign({ nbf: nowSeconds() + 2 * 3600 });
    await expectInvalid(`Bearer ${token}`, 'not_yet_valid');
  });

  it('rejects a token issued in the future (iat)', async () => {
    const token = await idp.sign({ iat: nowSeconds() + 2 * 3600, exp: nowSeconds() + 3 * 3600 });
    await expectInvalid(`Bearer ${token}`, 'not_yet_valid');
  });

  it('rejects a token from another issuer', async () => {
    const token = await idp.sign({ iss: 'https://evil.test.invalid/' });
    await expectInvalid(`Bearer ${token}`, 'issuer');
  });

  it('rejects a token for another audience', async () => {
    const token = await idp.sign({ aud: 'some-other-client' });
    await expectInvalid(`Bearer ${token}`, 'audience');
  });

  it('accepts an audience array that contains this service', async () => {
    const token = await idp.sign({ aud: ['some-other-client', AUDIENCE] });
    await expect(auth.verifyAuthorization(`Bearer ${token}`)).resolves.toMatchObject({ subject: 'user-123' });
  });

  it('rejects an unsigned alg "none" token', async () => {
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    const now = nowSeconds();
    const token = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ iss: ISSUER, aud: AUDIENCE, sub: 'user-123', iat: now, exp: now + 3600 })}.`;
    await expectInvalid(`Bearer ${token}`, 'algorithm');
  });

  it('rejects an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const spkiPem = await exportSPKI(idp.publicKey);
    const now = nowSeconds();
    const token = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'user-123', iat: now, exp: now + 3600 })
      .setProtectedHeader({ alg: 'HS256', kid: KID })
      .sign(new TextEncoder().encode(spkiPem));
    await expectInvalid(`Bearer ${token}`, 'algorithm');
  });

  it('rejects a token without sub, or with an empty sub', async () => {
    const withoutSub = await idp.sign({ sub: undefined });
    await expectInvalid(`Bearer ${withoutSub}`, 'claims');
    const emptySub = await idp.sign({ sub: '' });
    await expectInvalid(`Bearer ${emptySub}`, 'claims');
  });

  it('rejects a token without exp', async () => {
    const token = await idp.sign({ exp: undefined });
    await expectInvalid(`Bearer ${token}`, 'claims');
  });

  it('never echoes the token in the message or details', async () => {
    const token = await idp.sign({ aud: 'some-other-client' });
    const err = await expectInvalid(`Bearer ${token}`, 'audience');
    const [header, payload, signature] = token.split('.');
    for (const part of [token, header!, payload!, signature!]) {
      expect(err.message).not.toContain(part);
      expect(JSON.stringify(err.details)).not.toContain(part);
    }
  });
});

describe('OIDC mode when the key set cannot be loaded', () => {
  it('answers SERVICE_UNAVAILABLE instead of blaming the token', async () => {
    const down = await startFakeIdp();
    try {
      down.failWith(500);
      const authDown = await down.authenticator(dataDir);
      const err = await authDown.verifyAuthorization(`Bearer ${await down.sign()}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('SERVICE_UNAVAILABLE');
      expect((err as AppError).details).toEqual({ reason: 'jwks_unavailable' });

      down.failWith(null);
      await expect(authDown.verifyAuthorization(`Bearer ${await down.sign()}`)).resolves.toMatchObject({ subject: 'user-123' });
    } finally {
      await down.close();
    }
  });
});
