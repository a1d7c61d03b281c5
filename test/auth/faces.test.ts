import { createHmac, createPublicKey } from 'node:crypto';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { describe, expect } from 'vitest';
import { AUDIENCE, ISSUER, startFakeIdp, type FakeIdp } from '../helpers/identity-provider.js';
import type { TestApp } from '../helpers/app.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** The identity provider the service is started with. */
let provider: FakeIdp | undefined;

/** The service, taking the tokens of a stand-in identity provider started before it. */
const test = serviceTestWith(
  { OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: AUDIENCE },
  {
    peers: async () => {
      const idp = await startFakeIdp();
      provider = idp;
      return { env: { OIDC_JWKS_URL: idp.jwksUrl }, close: () => idp.close() };
    },
  },
).extend<{ idp: FakeIdp }>({
  // The provider the service was started with (so after the service).
  idp: [async ({ service: _ }, use) => use(provider!), { scope: 'file' }],
});

/** Authentication through the REST and GraphQL faces (spec section 5). */
describe('authentication on the public faces', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const good = { sub: 'user-1', email: 'one@example.com' };

  test('accepts an ID token signed by the configured key set and creates the user', async ({ service: t, idp }) => {
    const token = await idp.sign(good);
    const res = await t.call('GET', '/v1/users/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: { email: 'one@example.com', workflowCount: 0, deploymentCount: 0, subscriptionCount: 0 },
    });
    expect(res.body.data.userId).toMatch(/^usr_/);
    expect(new Date(res.body.data.createdAt).toISOString()).toBe(res.body.data.createdAt);
  });

  const expectUnauthorized = async (t: TestApp, authorization: string | undefined, reason?: string) => {
    const res = await t.call('GET', '/v1/users/me', { headers: authorization === undefined ? {} : { authorization } });
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.details).toBeTypeOf('object');
    if (reason) expect(res.body.error.details.reason).toBe(reason);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const token = authorization?.replace(/^Bearer /, '') ?? '';
    if (token.length > 20) expect(res.text).not.toContain(token);
    return res;
  };

  test('refuses a request without an Authorization header', async ({ service: t }) => {
    await expectUnauthorized(t, undefined);
  });

  test('refuses a malformed header', async ({ service: t }) => {
    await expectUnauthorized(t, 'Basic dXNlcjpwYXNz', 'malformed');
    await expectUnauthorized(t, 'Bearer', 'malformed');
    await expectUnauthorized(t, 'Bearer a b', 'malformed');
  });

  test('refuses a token signed by an unknown key', async ({ service: t, idp }) => {
    const { privateKey } = await generateKeyPair('RS256');
    await expectUnauthorized(t, `Bearer ${await idp.sign(good, {}, privateKey)}`, 'signature');
  });

  test('refuses an expired token', async ({ service: t, idp }) => {
    await expectUnauthorized(t, `Bearer ${await idp.sign({ ...good, iat: now() - 7200, exp: now() - 3600 })}`, 'expired');
  });

  test('refuses a token that is not yet valid', async ({ service: t, idp }) => {
    await expectUnauthorized(t, `Bearer ${await idp.sign({ ...good, nbf: now() + 7200 })}`, 'not_yet_valid');
  });

  test('refuses a token from another issuer', async ({ service: t, idp }) => {
    await expectUnauthorized(t, `Bearer ${await idp.sign({ ...good, iss: 'https://evil.example/' })}`, 'issuer');
  });

  test('refuses a token for another audience', async ({ service: t, idp }) => {
    await expectUnauthorized(t, `Bearer ${await idp.sign({ ...good, aud: 'someone-else' })}`, 'audience');
  });

  test('refuses alg none', async ({ service: t }) => {
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ ...good, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600 })}.`;
    await expectUnauthorized(t, `Bearer ${token}`);
  });

  test('refuses an HS256 token whose secret is the public key', async ({ service: t, idp }) => {
    const pem = await exportSPKI(idp.publicKey);
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const signingInput = `${enc({ alg: 'HS256', typ: 'JWT', kid: 'test-key-1' })}.${enc({ ...good, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600 })}`;
    const signature = createHmac('sha256', pem).update(signingInput).digest('base64url');
    await expectUnauthorized(t, `Bearer ${signingInput}.${signature}`);
    // The same with the DER bytes of the key as the secret.
    const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
    const signature2 = createHmac('sha256', der).update(signingInput).digest('base64url');
    await expectUnauthorized(t, `Bearer ${signingInput}.${signature2}`);
  });

  test('refuses a token without sub', async ({ service: t, idp }) => {
    const token = await new SignJWT({ email: 'nosub@example.com' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(idp.privateKey);
    await expectUnauthorized(t, `Bearer ${token}`, 'claims');
  });

  test('refuses a garbage token', async ({ service: t }) => {
    await expectUnauthorized(t, 'Bearer not.a.token');
  });

  test('answers GraphQL without a token with 401 and the UNAUTHORIZED code', async ({ service: t }) => {
    const res = await t.graphql('{ me { userId } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  test('creates exactly one user when first requests arrive at once', async ({ service: t, idp }) => {
    const token = await idp.sign({ sub: 'concurrent-user', email: 'c@example.com' });
    const results = await Promise.all(Array.from({ length: 12 }, () => t.call('GET', '/v1/users/me', { token })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(results.map((r) => r.body.data.userId)).size).toBe(1);
    const count = await t.database.db.prisma.signInIdentity.count({ where: { subject: 'concurrent-user' } });
    expect(count).toBe(1);
  });
});
