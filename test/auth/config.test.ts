import os from 'node:os';

import { describe, expect, it } from 'vitest';

import { createAuthenticator } from '../../src/auth/verify.js';

const dataDir = os.tmpdir();

describe('authenticator configuration', () => {
  it('refuses to start in production without an identity provider', async () => {
    const start = createAuthenticator({ devAuth: true, dataDir, production: true });
    await expect(start).rejects.toThrow('OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL must be set in production');
  });

  it('names only the missing variables in production', async () => {
    await expect(
      createAuthenticator({ audience: 'aud', jwksUrl: 'https://idp.example/jwks', devAuth: false, dataDir, production: true }),
    ).rejects.toThrow(/^OIDC_ISSUER must be set in production$/);
  });

  it('requires audience and JWKS URL once an issuer is set', async () => {
    await expect(createAuthenticator({ issuer: 'https://idp.example/', devAuth: false, dataDir, production: false })).rejects.toThrow(
      /OIDC_AUDIENCE and OIDC_JWKS_URL/,
    );
    await expect(
      createAuthenticator({ issuer: 'https://idp.example/', audience: 'aud', devAuth: false, dataDir, production: false }),
    ).rejects.toThrow(/OIDC_JWKS_URL/);
    await expect(
      createAuthenticator({
        issuer: 'https://idp.example/',
        jwksUrl: 'https://idp.example/jwks',
        devAuth: false,
        dataDir,
        production: false,
      }),
    ).rejects.toThrow(/OIDC_AUDIENCE/);
  });

  it('refuses to run without any issuer when the development issuer is off', async () => {
    await expect(createAuthenticator({ devAuth: false, dataDir, production: false })).rejects.toThrow(/no identity provider is configured/);
  });

  it('rejects an unusable JWKS URL, and plain http to a remote host in production', async () => {
    const base = { issuer: 'https://idp.example/', audience: 'aud', devAuth: false, dataDir };
    await expect(createAuthenticator({ ...base, jwksUrl: 'not a url', production: false })).rejects.toThrow(
      /OIDC_JWKS_URL is not a valid URL/,
    );
    await expect(createAuthenticator({ ...base, jwksUrl: 'ftp://idp.example/jwks', production: false })).rejects.toThrow(/https/);
    await expect(createAuthenticator({ ...base, jwksUrl: 'http://idp.example/jwks', production: true })).rejects.toThrow(
      /https in production/,
    );
    // Creating the authenticator sends nothing, so these hosts are never contacted.
    await expect(createAuthenticator({ ...base, jwksUrl: 'http://127.0.0.1:9/jwks', production: true })).resolves.toBeDefined();
    await expect(createAuthenticator({ ...base, jwksUrl: 'https://idp.example/jwks', production: true })).resolves.toBeDefined();
  });

  it('accepts no ID token when browsers sign in without an OpenID provider', async () => {
    const authenticator = await createAuthenticator({ devAuth: false, dataDir, production: true, ownSignIn: true });
    await expect(authenticator.verifyAuthorization('Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/accepts no ID tokens/),
    });
    await expect(authenticator.verifyAuthorization(undefined)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
