import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { writeFirst } from '../data-files.js';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * The authorization server's keys: the signing JWKS from OAUTH_JWKS in production, or one kept under
 * DATA_DIR in development (created by whichever instance starts first, adopted by the others, like
 * the development issuer's key). The cookie keys are derived from the first signing key, so there is
 * one secret to keep.
 */
export interface AuthorizationServerKeys {
  jwks: { keys: JWK[] };
  cookieKeys: string[];
}

const FILE = 'signing-key.json';

async function readKey(file: string): Promise<JWK | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JWK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`the OAuth signing key ${file} is not valid JSON: delete it to create a new one`, { cause: error });
  }
}

async function loadOrCreateDevKey(dataDir: string): Promise<JWK> {
  const dir = path.join(dataDir, 'oauth');
  const file = path.join(dir, FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = await readKey(file);
  if (existing) return existing;
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const full: JWK = {
    ...jwk,
    kid: await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }),
    alg: 'ES256',
    use: 'sig',
  };
  await writeFirst(file, `${JSON.stringify(full, null, 2)}\n`);
  return (await readKey(file))!;
}

export async function loadAuthorizationServerKeys(options: {
  jwks: { keys: Record<string, unknown>[] } | null;
  dataDir: string;
}): Promise<AuthorizationServerKeys> {
  const keys = options.jwks ? (options.jwks.keys as JWK[]) : [await loadOrCreateDevKey(options.dataDir)];
  const cookieKeys = keys.map((k) =>
    createHash('sha256')
      .update(`oauth-cookies:${String(k.d)}`)
      .digest('base64url'),
  );
  return { jwks: { keys }, cookieKeys };
}
