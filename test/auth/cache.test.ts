import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import * as jose from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { AppError } from '../../src/errors.js';
import { VerifiedTokenCache } from '../../src/auth/token-cache.js';
import type { Authenticator } from '../../src/auth/verify.js';
import { startFakeIdp, type FakeIdp } from '../helpers/identity-provider.js';

// Wraps jwtVerify so the tests can count real verifications; behaviour is unchanged.
vi.mock('jose', async (importOriginal) => {
  const original = await importOriginal<typeof import('jose')>();
  return { ...original, jwtVerify: vi.fn(original.jwtVerify) };
});

const jwtVerify = vi.mocked(jose.jwtVerify);

let idp: FakeIdp;
let auth: Authenticator;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-cache-'));
  idp = await startFakeIdp();
});

afterAll(async () => {
  await idp?.close();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  auth = await idp.authenticator(dataDir);
  jwtVerify.mockClear();
});

afterEach(() => {
  auth.close?.();
  vi.useRealTimers();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('verification cache', () => {
  it('verifies a token once and then answers from the cache', async () => {
    const token = await idp.sign();
    const first = await auth.verifyAuthorization(`Bearer ${token}`);
    for (let i = 0; i < 5; i++) {
      await expect(auth.verifyAuthorization(`Bearer ${token}`)).resolves.toEqual(first);
    }
    expect(jwtVerify).toHaveBeenCalledTimes(1);
    expect(idp.fetches()).toBeGreaterThanOrEqual(1);
  });

  it('does not cache failures', async () => {
    const token = await idp.sign({ aud: 'someone-else' });
    for (let i = 0; i < 3; i++) {
      await expect(auth.verifyAuthorization(`Bearer ${token}`)).rejects.toBeInstanceOf(AppError);
    }
    expect(jwtVerify).toHaveBeenCalledTimes(3);
  });

  it('re-verifies after 60 seconds even when the token lives longer', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await idp.sign({ exp: nowSeconds() + 3600 });
    await auth.verifyAuthorization(`Bearer ${token}`);
    vi.setSystemTime(Date.now() + 59_000);
    await auth.verifyAuthorization(`Bearer ${token}`);
    expect(jwtVerify).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 2_000);
    await auth.verifyAuthorization(`Bearer ${token}`);
    expect(jwtVerify).toHaveBeenCalledTimes(2);
  });

  it('never serves a token past its exp', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await idp.sign({ exp: nowSeconds() + 20 });
    await auth.verifyAuthorization(`Bearer ${token}`);
    vi.setSystemTime(Date.now() + 10_000);
    await auth.verifyAuthorization(`Bearer ${token}`);
    expect(jwtVerify).toHaveBeenCalledTimes(1);

    // Just past exp the clock tolerance still accepts the token, but only a
    // fresh verification may say so.
    vi.setSystemTime(Date.now() + 15_000);
    await auth.verifyAuthorization(`Bearer ${token}`);
    expect(jwtVerify).toHaveBeenCalledTimes(2);
    await auth.verifyAuthorization(`Bearer ${token}`);
    expect(jwtVerify).toHaveBeenCalledTimes(3);

    vi.setSystemTime(Date.now() + 60_000);
    const err = await auth.verifyAuthorization(`Bearer ${token}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details).toEqual({ reason: 'expired' });
    expect(jwtVerify).toHaveBeenCalledTimes(4);
  });
});

describe('VerifiedTokenCache', () => {
  const identity = { issuer: 'i', subject: 's', email: null, name: null };

  it('evicts the least recently used entry when full', () => {
    const cache = new VerifiedTokenCache(2, 60_000);
    const exp = 10_000;
    cache.set('a', identity, exp, 0);
    cache.set('b', identity, exp, 0);
    expect(cache.get('a', 1_000)).toBe(identity);
    cache.set('c', identity, exp, 1_001);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 1_002)).toBeUndefined();
    expect(cache.get('a', 1_002)).toBe(identity);
    expect(cache.get('c', 1_002)).toBe(identity);
  });

  it('holds an entry until the earlier of exp and the maximum age', () => {
    const cache = new VerifiedTokenCache(10, 60_000);
    cache.set('short', identity, 30, 0);
    cache.set('long', identity, 3600, 0);
    expect(cache.get('short', 29_999)).toBe(identity);
    expect(cache.get('short', 30_000)).toBeUndefined();
    expect(cache.get('long', 59_999)).toBe(identity);
    expect(cache.get('long', 60_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not store an already expired token', () => {
    const cache = new VerifiedTokenCache(10, 60_000);
    cache.set('old', identity, 5, 10_000);
    expect(cache.size).toBe(0);
  });

  it('keys by digest, never by the token itself', () => {
    const key = VerifiedTokenCache.keyOf('header.payload.signature');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('payload');
  });
});
