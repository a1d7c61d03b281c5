import { mkdir, readFile } from 'node:fs/promises';
import { writeAtomically, writeFirst } from '../data-files.js';
import path from 'node:path';

import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * The development issuer stands in for an identity provider on a developer's
 * machine: `npm run token` signs ID tokens with a key kept under the data
 * directory and the service verifies them like any other OIDC token.
 */
export const DEV_ISSUER = 'urn:workflow-service:dev';
export const DEV_AUDIENCE = 'workflow-service';
export const DEV_ALGORITHM = 'ES256';

const DEFAULT_LIFETIME_SECONDS = 24 * 60 * 60;
const PRIVATE_FILE = 'private.jwk.json';
const PUBLIC_FILE = 'public.jwk.json';

export interface DevIssuerKey {
  kid: string;
  privateKey: CryptoKey;
  /** Public JWK with `kid`, `alg` and `use`, ready for a JWKS. */
  publicJwk: JWK;
}

export function devIssuerDir(dataDir: string): string {
  return path.join(dataDir, 'dev-issuer');
}

/**
 * Loads the development issuer key, creating it on first use. The private JWK
 * file is the source of truth; whoever publishes it first wins, and every
 * other concurrent starter adopts that key, so two services started at once
 * never end up with different keys.
 */
export async function loadOrCreateDevIssuerKey(dataDir: string): Promise<DevIssuerKey> {
  const dir = devIssuerDir(dataDir);
  const privatePath = path.join(dir, PRIVATE_FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });

  let privateJwk = await readPrivateJwk(privatePath);
  if (!privateJwk) privateJwk = await createPrivateJwk(privatePath);

  const key = await toDevIssuerKey(privateJwk, privatePath);
  // The public file is derived data, so rewriting it on every start is safe and
  // repairs it if someone deleted it.
  await writeAtomically(path.join(dir, PUBLIC_FILE), `${JSON.stringify(key.publicJwk, null, 2)}\n`, 0o644);
  return key;
}

export async function signDevToken(
  dataDir: string,
  opts: { email: string; sub?: string; name?: string; expiresInSeconds?: number },
): Promise<string> {
  const email = opts.email.trim();
  if (!email) throw new Error('signDevToken needs an e-mail address');
  const lifetime = opts.expiresInSeconds ?? DEFAULT_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime <= 0) {
    throw new Error('expiresInSeconds must be a positive whole number of seconds');
  }
  const sub = opts.sub ?? `dev|${email.toLowerCase()}`;
  if (!sub) throw new Error('sub must not be empty');

  const key = await loadOrCreateDevIssuerKey(dataDir);
  const claims: Record<string, string> = { email };
  if (opts.name !== undefined) claims.name = opts.name;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(key.privateKey);
}

async function readPrivateJwk(privatePath: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await readFile(privatePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw corruptKeyError(privatePath);
  }
}

async function createPrivateJwk(privatePath: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });
  const full: JWK = { ...jwk, kid, alg: DEV_ALGORITHM, use: 'sig' };

  await writeFirst(privatePath, `${JSON.stringify(full, null, 2)}\n`);
  const winner = await readPrivateJwk(privatePath);
  if (!winner) throw corruptKeyError(privatePath);
  return winner;
}

async function toDevIssuerKey(jwk: JWK, privatePath: string): Promise<DevIssuerKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string') {
    throw corruptKeyError(privatePath);
  }
  const base = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = typeof jwk.kid === 'string' && jwk.kid ? jwk.kid : await calculateJwkThumbprint(base);
  let privateKey: CryptoKey;
  try {
    privateKey = (await importJWK({ ...base, d: jwk.d }, DEV_ALGORITHM)) as CryptoKey;
  } catch {
    throw corruptKeyError(privatePath);
  }
  return { kid, privateKey, publicJwk: { ...base, kid, alg: DEV_ALGORITHM, use: 'sig' } };
}

function corruptKeyError(privatePath: string): Error {
  return new Error(
    `the development issuer key at ${privatePath} is not a valid ES256 private JWK; ` +
      `delete the ${path.dirname(privatePath)} directory to create a new key (tokens signed with the old key stop working)`,
  );
}
