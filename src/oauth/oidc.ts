import * as client from 'openid-client';
import { AppError } from '../errors.js';
import type { VerifiedIdentity } from '../auth/verify.js';

/**
 * The service as a relying party of the configured OpenID provider (authorization code with
 * PKCE S256, `openid-client`): one way in beside GitHub and e-mail links (docs/operations.md,
 * "Browser sign-in").
 */

export interface OidcRelyingParty {
  /** The provider's authorization URL for a new sign-in, with what the callback must check. */
  begin(redirectUri: string): Promise<{ url: string; state: string; nonce: string; codeVerifier: string }>;
  /** Exchanges the callback's code (PKCE, state and nonce checked) for the signed-in identity. */
  finish(callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<VerifiedIdentity>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function createOidcRelyingParty(options: { issuer: string; clientId: string; clientSecret: string | null }): OidcRelyingParty {
  let discovered: Promise<client.Configuration> | null = null;
  const issuerUrl = new URL(options.issuer);

  function configuration(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(
        issuerUrl,
        options.clientId,
        options.clientSecret ?? undefined,
        options.clientSecret ? client.ClientSecretPost(options.clientSecret) : client.None(),
        // Plain http only to a provider on this machine (development, tests).
        issuerUrl.protocol === 'http:' && LOOPBACK.has(issuerUrl.hostname) ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = null;
        throw Object.assign(
          new AppError(
            'SERVICE_UNAVAILABLE',
            'the identity provider cannot be reached; try signing in again shortly',
            { reason: 'oidc_discovery' },
            { 'Retry-After': '5' },
          ),
          { cause: error },
        );
      });
    return discovered;
  }

  return {
    async begin(redirectUri) {
      const config = await configuration();
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state, nonce, codeVerifier };
    },

    async finish(callbackUrl, checks) {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        const described = error instanceof Error ? error.message : 'the sign-in could not be completed';
        throw Object.assign(
          new AppError('UNAUTHORIZED', `the identity provider did not sign you in: ${described}`, { reason: 'oidc_callback' }),
          { cause: error },
        );
      }
      const claims = tokens.claims();
      if (!claims?.sub) throw new AppError('UNAUTHORIZED', 'the identity provider sent no subject for you', { reason: 'oidc_claims' });
      let { email, name } = claims as { email?: unknown; name?: unknown };
      const verified = (claims as { email_verified?: unknown }).email_verified === true;
      // Providers may keep the profile claims out of the ID token and serve them at userinfo.
      if (typeof email !== 'string' && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = info.email;
        name = name ?? info.name;
      }
      return {
        issuer: options.issuer,
        subject: claims.sub,
        email: typeof email === 'string' ? email : null,
        name: typeof name === 'string' ? name : null,
        method: 'oidc',
        // Only an address the ID token itself vouches for may join an existing account.
        emailVerified: verified && typeof (claims as { email?: unknown }).email === 'string',
      };
    },
  };
}
