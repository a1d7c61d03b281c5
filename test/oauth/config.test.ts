import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { testOAuthJwks } from '../helpers/app.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  OIDC_ISSUER: 'https://idp.example/',
  OIDC_AUDIENCE: 'a',
  OIDC_JWKS_URL: 'https://idp.example/jwks',
  MCP_SESSION_SECRET: 'x'.repeat(32),
};

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as ConfigError).problems.join('\n');
  }
  return '';
}

describe('OAuth settings', () => {
  it('production needs OAUTH_JWKS, and starts with it', () => {
    expect(problemsOf(PRODUCTION)).toMatch(/OAUTH_JWKS must be set in production/);
    expect(loadConfig({ ...PRODUCTION, OAUTH_JWKS: testOAuthJwks() }).oauthJwks?.keys).toHaveLength(1);
  });

  it('OAUTH_JWKS must be a key set of private keys', () => {
    expect(problemsOf({ OAUTH_JWKS: 'not json' })).toMatch(/OAUTH_JWKS must be a JSON Web Key Set/);
    expect(problemsOf({ OAUTH_JWKS: '{"keys":[]}' })).toMatch(/OAUTH_JWKS must be a JSON Web Key Set/);
    expect(problemsOf({ OAUTH_JWKS: '{"keys":[{"kty":"EC","crv":"P-256","x":"a","y":"b"}]}' })).toMatch(
      /private keys \(each with its "d"\)/,
    );
  });

  it('the loopback client metadata setting is for tests only', () => {
    expect(problemsOf({ ...PRODUCTION, OAUTH_JWKS: testOAuthJwks(), OAUTH_CLIENT_METADATA_LOOPBACK: 'on' })).toMatch(
      /OAUTH_CLIENT_METADATA_LOOPBACK=on is for tests and refused when NODE_ENV=production/,
    );
    expect(problemsOf({ OAUTH_CLIENT_METADATA_LOOPBACK: 'yes' })).toMatch(/OAUTH_CLIENT_METADATA_LOOPBACK must be on or off/);
    expect(loadConfig({ OAUTH_CLIENT_METADATA_LOOPBACK: 'on' }).oauthClientMetadataLoopback).toBe(true);
  });
});
