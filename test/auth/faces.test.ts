import { createHmac, createPublicKey } from 'node:crypto';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, ISSUER, startFakeIdp, type FakeIdp } from '../helpers/identity-provider.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** Authentication through the REST and GraphQL faces (spec section 5). */
describe('authentication on the public faces', () => {
  let idp: FakeIdp;
  let t: TestApp;

  beforeAll(async () => {
    idp = await startFakeIdp();
    t = await startTestApp({ env: { OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: AUDIENCE, OIDC_JWKS_URL: idp.jwksUrl } });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const good = { sub: 'user-1', email: 'one@example.com' };

  it('accepts an ID token signed by the configured key set and creates the user', async () => {
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

  const expectUnauthorized = async (authorization: string | undefined, reason?: string) => {
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

  it('refuses a request without an Authorization header', async () => {
    await expectUnauthorized(undefined);
  });

  it('refuses a malformed header', async () => {
    await expectUnauthorized('Basic dXNlcjpwYXNz', 'malformed');
    await expectUnauthorized('Bearer', 'malformed');
    await expectUnauthorized('Bearer a b', 'malformed');
  });

  it('refuses a token signed by an unknown key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    await expectUnauthorized(`Bearer ${await idp.sign(good, {}, privateKey)}`, 'signature');
  });

  it('refuses an expired token', async () => {
    await expectUnauthorized(`Bearer ${await idp.sign({ ...good, iat: now() - 7200, exp: now() - 3600 })}`, 'expired');
  });

  it('refuses a token that is not yet valid', async () => {
    await expectUnauthorized(`Bearer ${await idp.sign({ ...good, nbf: now() + 7200 })}`, 'not_yet_valid');
  });

  it('refuses a token from another issuer', async () => {
    await expectUnauthorized(`Bearer ${await idp.sign({ ...good, iss: 'https://evil.example/' })}`, 'issuer');
  });

  it('refuses a token for another audience', async () => {
    await expectUnauthorized(`Bearer ${await idp.sign({ ...good, aud: 'someone-else' })}`, 'audience');
  });

  it('refuses alg none', async () => {
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ ...good, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600 })}.`;
    await expectUnauthorized(`Bearer ${token}`);
  });

  it('refuses an HS256 token whose secret is the public key', async () => {
    const pem = await exportSPKI(idp.publicKey);
    const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const signingInput = `${enc({ alg: 'HS256', typ: 'JWT', kid: 'test-key-1' })}.${enc({ ...good, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600 })}`;
    const signature = createHmac('sha256', pem).update(signingInput).digest('base64url');
    await expectUnauthorized(`Bearer ${signingInput}.${signature}`);
    // The same with the DER bytes of the key as the secret.
    const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
    const signature2 = createHmac('sha256', der).update(signingInput).digest('base64url');
    await expectUnauthorized(`Bearer ${signingInput}.${signature2}`);
  });

  it('refuses a token without sub', async () => {
    const token = await new SignJWT({ email: 'nosub@example.com' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(idp.privateKey);
    await expectUnauthorized(`Bearer ${token}`, 'claims');
  });

  it('refuses a garbage token', async () => {
    await expectUnauthorized('Bearer not.a.token');
  });

  it('answers GraphQL without a token with 401 and the UNAUTHORIZED code', async () => {
    const res = await t.graphql('{ me { userId } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  });

  it('creates exactly one user when first requests arrive at once', async () => {
    const token = await idp.sign({ sub: 'concurrent-user', email: 'c@example.com' });
    const results = await Promise.all(Array.from({ length: 12 }, () => t.call('GET', '/v1/users/me', { token })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(results.map((r) => r.body.data.userId)).size).toBe(1);
    const count = await t.database.db.prisma.signInIdentity.count({ where: { subject: 'concurrent-user' } });
    expect(count).toBe(1);
  });
});
