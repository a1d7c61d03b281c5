import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.js';
import type { OAuthStore } from '../oauth-store/index.js';
import { renderOAuthError } from './browser-errors.js';
import type { createClientMetadataPolicy } from './client-metadata.js';
import { API_SCOPE, apiResourceServerInfo, cliClient, deviceFlowFeature } from './device-flow.js';
import { INTERACTION_PATH } from './interaction.js';
import type { AuthorizationServerKeys } from './keys.js';
import { deploymentOfResource, endpointResource, MCP_SCOPE } from './resource.js';

/**
 * How oidc-provider is set up for the service's authorization server (src/oauth/authorization-server.ts):
 * its routes under /oauth, public clients with PKCE only, opaque access tokens bound to one
 * deployment's tool endpoint (or the API, for the command-line tool), and the lifetimes of its records.
 */

export const OAUTH_PREFIX = '/oauth';
/** Access tokens live about an hour; clients refresh on a 401 and retry. */
const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** A refresh token is good for 30 days from its issue; each refresh issues a new one (30 days from the last use). */
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/**
 * The library's own expiry of a grant, far out: a grant's real lifetime slides with its use and is
 * kept by the store (src/oauth-store/adapter.ts, GRANT_IDLE_MS).
 */
const GRANT_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

export interface ProviderParts {
  config: Config;
  store: OAuthStore;
  keys: AuthorizationServerKeys;
  clientMetadata: ReturnType<typeof createClientMetadataPolicy>;
}

function signingAlgorithm(jwk: { alg?: string; kty?: string; crv?: string }): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  return jwk.crv === 'P-384' ? 'ES384' : 'ES256';
}

const ROUTES: Configuration['routes'] = {
  authorization: `${OAUTH_PREFIX}/authorize`,
  token: `${OAUTH_PREFIX}/token`,
  registration: `${OAUTH_PREFIX}/register`,
  revocation: `${OAUTH_PREFIX}/revoke`,
  jwks: `${OAUTH_PREFIX}/jwks`,
  end_session: `${OAUTH_PREFIX}/session/end`,
  userinfo: `${OAUTH_PREFIX}/me`,
  pushed_authorization_request: `${OAUTH_PREFIX}/par`,
  introspection: `${OAUTH_PREFIX}/introspect`,
  backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
  code_verification: `${OAUTH_PREFIX}/device`,
  device_authorization: `${OAUTH_PREFIX}/device/auth`,
  challenge: `${OAUTH_PREFIX}/challenge`,
};

/**
 * Resource indicators: a token is for the API (the command-line tool) or for one deployment's tool
 * endpoint, and only for a deployment that exists.
 */
function resourceIndicators(parts: ProviderParts) {
  const { config, store } = parts;
  return {
    enabled: true,
    defaultResource: (ctx: KoaContextWithOIDC) => (ctx.oidc.params?.resource as string | undefined) ?? undefined,
    useGrantedResource: () => true,
    async getResourceServerInfo(ctx: KoaContextWithOIDC, resource: string) {
      const api = apiResourceServerInfo(ctx, config.publicBaseUrl, resource, ACCESS_TOKEN_TTL_SECONDS);
      if (api) return api;
      const deploymentId = deploymentOfResource(config.publicBaseUrl, resource);
      // At the authorization endpoint, before anyone signed in, an unknown deployment and
      // someone's private one look the same: whether it exists, and is the user's, is told
      // after sign-in, on the consent page. Tokens are only issued for one that exists.
      const known =
        deploymentId && (ctx.oidc.route === 'authorization' || ctx.oidc.route === 'resume' || (await store.deploymentAccess(deploymentId)));
      if (!deploymentId || !known) {
        throw new errors.InvalidTarget(
          `resource must be the URL of a deployment's tool endpoint, ${config.publicBaseUrl}/mcp/<deploymentId>`,
        );
      }
      return {
        scope: MCP_SCOPE,
        audience: endpointResource(config.publicBaseUrl, deploymentId),
        accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
        accessTokenFormat: 'opaque' as const,
      };
    },
  };
}

function features(parts: ProviderParts): Configuration['features'] {
  const { clientMetadata } = parts;
  return {
    devInteractions: { enabled: false },
    deviceFlow: deviceFlowFeature,
    registration: { enabled: true, initialAccessToken: false },
    // A client revokes only its own tokens.
    revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    introspection: { enabled: false },
    userinfo: { enabled: false },
    // No sign-out at the authorization server: a link from any site could end connections or
    // send the browser to a URI of a client's choosing. Sign-out is the dashboard's (/sign-out).
    rpInitiatedLogout: { enabled: false },
    // Not used by MCP clients; one less unauthenticated write.
    pushedAuthorizationRequests: { enabled: false },
    resourceIndicators: resourceIndicators(parts),
    clientIdMetadataDocument: {
      enabled: true,
      ack: 'draft-02',
      allowFetch: (_ctx: KoaContextWithOIDC, clientId: string) => clientMetadata.allowFetch(clientId),
      allowClient: (_ctx: KoaContextWithOIDC, client: { redirectUris?: string[] }) => clientMetadata.allowClient(client),
      cacheDuration: { min: 60, max: 24 * 60 * 60 },
      // The type definitions predate this (experimental) feature of the library.
    } as never,
  };
}

/** The authorization server's configuration of oidc-provider. */
export function providerConfiguration(parts: ProviderParts): Configuration {
  const { store, keys, clientMetadata } = parts;
  return {
    adapter: store.adapterFactory((message) => new errors.InvalidGrant(message)) as unknown as Configuration['adapter'],
    clients: [cliClient],
    fetch: clientMetadata.fetch as Configuration['fetch'],
    jwks: keys.jwks as Configuration['jwks'],
    cookies: { keys: keys.cookieKeys, long: { signed: true }, short: { signed: true } },
    routes: ROUTES,
    scopes: [MCP_SCOPE, API_SCOPE, 'offline_access'],
    // An MCP client learns no more about the user than the consent page says: with `openid`, the
    // account's id (shown on the page); never the e-mail address (no `email` scope is offered).
    claims: { openid: ['sub'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: signingAlgorithm(keys.jwks.keys[0]!) as 'ES256',
    },
    // Public clients only: an IDE cannot keep a secret.
    clientAuthMethods: ['none'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    features: features(parts),
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      Grant: GRANT_TTL_SECONDS,
      Interaction: 15 * 60,
      DeviceCode: 10 * 60,
      Session: 24 * 60 * 60,
      IdToken: 60 * 60,
      // Each refresh gives a new refresh token good for the full period again.
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
    },
    // Connections are independent of any browser session: they last 30 days from their last use
    // whatever happens to the session at the authorization server (its sign-out, its expiry, or a
    // second authorization of the same client).
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Consent is asked on every authorization: a new IDE connection is a moment the user should see.
    // (the grant of the consent just given is the one exception: it is what the authorization resumes with).
    async loadExistingGrant(ctx) {
      const grantId = (ctx.oidc.result as { consent?: { grantId?: string } } | undefined)?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const user = await store.findUser(sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id }) };
    },
    renderError: renderOAuthError,
    enableHttpPostMethods: false,
  };
}
