import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { createAuthenticator, type Authenticator } from '../../src/auth/verify.js';

export const ISSUER = 'https://idp.test.invalid/';
export const AUDIENCE = 'workflow-service-test';
export const KID = 'test-key-1';

/** A stand-in identity provider: an RS256 key and its JWKS served on 127.0.0.1. */
export interface FakeIdp {
  jwksUrl: string;
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  /** How many times the JWKS was requested. */
  fetches(): number;
  /** Makes the JWKS endpoint answer with this status instead of the key set. */
  failWith(status: number | null): void;
  sign(claims?: JWTPayload, header?: { kid?: string; alg?: string }, key?: CryptoKey): Promise<string>;
  /** The service's authenticator configured for this provider alone (no development issuer). */
  authenticator(dataDir: string): Promise<Authenticator>;
  close(): Promise<void>;
}

export async function startFakeIdp(): Promise<FakeIdp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  let fetches = 0;
  let failure: number | null = null;

  const server: Server = createServer((req, res) => {
    if (req.url !== '/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    fetches += 1;
    if (failure !== null) {
      res.writeHead(failure).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
    publicKey,
    privateKey,
    fetches: () => fetches,
    failWith(status) {
      failure = status;
    },
    async sign(claims = {}, header = {}, key = privateKey) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: ISSUER,
        aud: AUDIENCE,
        sub: 'user-123',
        iat: now,
        exp: now + 3600,
        email: 'alice@example.com',
        name: 'Alice',
        ...claims,
      })
        .setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? KID })
        .sign(key);
    },
    authenticator(dataDir) {
      return createAuthenticator({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUrl: `http://127.0.0.1:${port}/jwks.json`,
        devAuth: false,
        dataDir,
        production: false,
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
