import type { IncomingMessage, ServerResponse } from 'node:http';
import inject from 'light-my-request';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { assertJsonDepth, readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import type { Viewer } from '../auth/viewer.js';
import { addressKey } from '../limits/http.js';
import { namedBudget, type BudgetName } from '../limits/plans.js';
import { limitInto, type RateLimiter, type RateLimitHeaders } from '../limits/rate-limit.js';
import type { Logger } from '../logger.js';
import { withOAuthRequest, type OAuthStore } from '../oauth-store/index.js';
import { createClientMetadataPolicy } from './client-metadata.js';
import { browserErrorMiddleware, renderOAuthError } from './browser-errors.js';
import {
  API_SCOPE,
  apiResourceServerInfo,
  cliClient,
  createDevicePollPacer,
  deviceFlowFeature,
  isApiResource,
  mayUseDeviceGrant,
} from './device-flow.js';
import { createInteractions, INTERACTION_PATH } from './interaction.js';
import { loadAuthorizationServerKeys } from './keys.js';
import { loadKnownClientDocuments } from './known-clients.js';
import { authorizationProblemPage } from './pages.js';
import { CLIENT_METADATA_LIMITS, checkRegistration, DEVICE_CODE_GRANT } from './redirect-uris.js';
import { baseUrlReachedBy, deploymentOfResource, endpointResource, MCP_SCOPE, PRM_PATH, protectedResourceMetadata } from './resource.js';
import type { BrowserSignIn } from './sign-in.js';

/**
 * The service's own OAuth 2.1 authorization server for MCP clients (docs/decisions.md, "OAuth for
 * MCP clients"): oidc-provider, mounted under /oauth with its metadata at the RFC 8414 well-known
 * path. It signs the user in through the browser sign-in (src/oauth/sign-in.ts), asks for consent
 * per deployment, and issues opaque access tokens bound to one deployment's tool endpoint. Its
 * records live in src/oauth-store/ (this module is a face: it never touches the database).
 */

const OAUTH_PREFIX = '/oauth';
/** Access tokens live about an hour; clients refresh on a 401 and retry. */
const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** A refresh token is good for 30 days from its issue; each refresh issues a new one (30 days from the last use). */
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/**
 * The library's own expiry of a grant, far out: a grant's real lifetime slides with its use and is
 * kept by the store (src/oauth-store/adapter.ts, GRANT_IDLE_MS).
 */
const GRANT_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;
const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';
/** How often expired records are removed (also once at start). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

interface VerifiedAccessToken {
  userId: string;
  clientId: string;
  grantId: string;
  /** null: a token of the command-line tool for the API (src/oauth/device-flow.ts). */
  deploymentId: string | null;
}

/** What the authorization server needs of the request's scope: the caller's address and the rate-limit headers. */
interface OAuthRequestScope {
  clientIp: string;
  headers: RateLimitHeaders;
}

export interface AuthorizationServer {
  /** Answers /oauth/* and the authorization server's well-known paths; null for other paths. */
  handle(request: Incoming, url: URL, scope: OAuthRequestScope): Promise<Reply | null>;
  /** The access token's user and the deployment it is bound to, or null when it is unknown, expired or revoked. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | null>;
  /** The viewer of an access token (UNAUTHORIZED, `invalid_token`, when it is unknown, expired or revoked). */
  authenticateAccessToken(token: string): Promise<Viewer>;
  /** Removes expired records now (also runs every few minutes); returns how many. */
  sweep(): Promise<number>;
  close(): void;
  readonly issuer: string;
}

/**
 * Nothing published at a discovery path. The path is not repeated: a client derives these paths from
 * the endpoint it was given, and a key-bound endpoint's path holds a key.
 */
function jsonNotFound(): Response {
  return Response.json(
    { error: { code: 'NOT_FOUND', message: 'nothing is published at this address' } },
    { status: 404, headers: { 'cache-control': 'no-store' } },
  );
}

function signingAlgorithm(jwk: { alg?: string; kty?: string; crv?: string }): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  return jwk.crv === 'P-384' ? 'ES384' : 'ES256';
}

/** The shape of this server's access tokens (opaque, 43 characters), told apart from ID tokens (JWTs) and API keys. */
export function looksLikeAccessToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/**
 * The budgets an unauthenticated request to the authorization server is charged before it runs:
 * registration stores a client, an authorization request stores an interaction and may fetch a
 * client ID metadata document.
 */
function budgetsOf(method: string, path: string): BudgetName[] {
  if (path === `${OAUTH_PREFIX}/register` && method === 'POST') return ['oauth-registration'];
  if (path === `${OAUTH_PREFIX}/authorize`) return ['oauth-authorization'];
  return [];
}

export async function createAuthorizationServer(deps: {
  config: Config;
  store: OAuthStore;
  browser: BrowserSignIn;
  limiter: RateLimiter;
  log: Logger;
}): Promise<AuthorizationServer> {
  const { config, store, limiter } = deps;
  const publicUrl = new URL(config.publicBaseUrl);
  const issuer = publicUrl.origin;
  const keys = await loadAuthorizationServerKeys({ jwks: config.oauthJwks, dataDir: config.dataDir });
  const clientMetadata = createClientMetadataPolicy({
    allowLoopback: config.oauthClientMetadataLoopback,
    fetch: config.oauthClientMetadataFetch,
    known: loadKnownClientDocuments(config.oauthClientMetadataDir),
    onFallback: (clientId, reason) => deps.log.info({ clientId, reason }, 'using the pinned client ID metadata document'),
  });

  const configuration: Configuration = {
    adapter: store.adapterFactory((message) => new errors.InvalidGrant(message)) as unknown as Configuration['adapter'],
    clients: [cliClient],
    fetch: clientMetadata.fetch as Configuration['fetch'],
    jwks: keys.jwks as Configuration['jwks'],
    cookies: { keys: keys.cookieKeys, long: { signed: true }, short: { signed: true } },
    routes: {
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
    },
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
    features: {
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
      resourceIndicators: {
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
            deploymentId &&
            (ctx.oidc.route === 'authorization' || ctx.oidc.route === 'resume' || (await store.deploymentAccess(deploymentId)));
          if (!deploymentId || !known) {
            throw new errors.InvalidTarget(
              `resource must be the URL of a deployment's tool endpoint, ${config.publicBaseUrl}/mcp/<deploymentId>`,
            );
          }
          return {
            scope: MCP_SCOPE,
            audience: endpointResource(config.publicBaseUrl, deploymentId),
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'opaque',
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: (_ctx: KoaContextWithOIDC, clientId: string) => clientMetadata.allowFetch(clientId),
        allowClient: (_ctx: KoaContextWithOIDC, client: { redirectUris?: string[] }) => clientMetadata.allowClient(client),
        cacheDuration: { min: 60, max: 24 * 60 * 60 },
        // The type definitions predate this (experimental) feature of the library.
      } as never,
    },
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

  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  provider.use(browserErrorMiddleware());
  // Errors the library answers as server_error are the service's own faults: logged like any other.
  provider.on('server_error', (_ctx: unknown, error: Error) =>
    deps.log.error({ err: error }, 'unexpected error in the authorization server'),
  );
  const interactions = createInteractions({ provider, config, browser: deps.browser, store });
  deps.browser.describeReturnWith(interactions.describeReturn);
  const callback = provider.callback();

  async function dispatch(incoming: Incoming, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url?.startsWith(`${INTERACTION_PATH}/`)) {
      await interactions.handle(req, res, incoming);
      return;
    }
    await callback(req, res);
  }

  /** Runs the request through oidc-provider's Node handler (in memory, no socket) and returns its answer. */
  async function forward(request: Incoming, url: URL, body?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers.entries()) headers[name] = value;
    // Links the provider builds (metadata, redirects) use the public address, not the request's.
    headers.host = publicUrl.host;
    headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    delete headers['x-forwarded-host'];
    delete headers['content-length'];
    // Awaited inside: light-my-request runs the request when its answer is awaited, and the request
    // must run within its own context (src/oauth-store/adapter.ts links a rotation to its new token).
    const answer = await withOAuthRequest(async () => {
      const injected = await inject(
        (req, res) => {
          dispatch(request, req, res).catch((error: unknown) => {
            deps.log.error({ err: error }, 'unexpected error in the authorization server');
            if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: 'server_error', error_description: 'unexpected error' }));
          });
        },
        { method: request.method as 'GET', url: `${url.pathname}${url.search}`, headers, payload: body },
      );
      return injected;
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'connection') continue;
      if (Array.isArray(value)) for (const v of value) out.append(name, v);
      else out.set(name, String(value));
    }
    const status = answer.statusCode;
    return new Response(status === 204 || status === 304 || request.method === 'HEAD' ? null : new Uint8Array(answer.rawPayload), {
      status,
      headers: out,
    });
  }

  async function metadata(request: Incoming): Promise<Response> {
    const discovery = await forward(
      { method: 'GET', url: `${issuer}${OIDC_METADATA}`, headers: request.headers, body: null },
      new URL(`${issuer}${OIDC_METADATA}`),
    );
    const document = (await discovery.json()) as Record<string, unknown>;
    document.authorization_response_iss_parameter_supported = true;
    document.client_id_metadata_document_supported = true;
    return Response.json(document, { headers: { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' } });
  }

  /** Charges the request's budgets before any work; a refused browser request gets a page. */
  async function charge(request: Incoming, path: string, scope: OAuthRequestScope): Promise<Reply | null> {
    for (const budget of budgetsOf(request.method, path)) {
      try {
        await limitInto(scope.headers, limiter, `${budget}:${addressKey(scope.clientIp)}`, namedBudget(budget));
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'RATE_LIMITED' || path !== `${OAUTH_PREFIX}/authorize`) throw error;
        return authorizationProblemPage(
          'Too many sign-in attempts',
          `Too many authorization requests came from your network. Wait ${error.headers?.['Retry-After'] ?? 'a minute'} seconds, then start the connection again from your IDE.`,
          429,
          error.headers ?? {},
        );
      }
    }
    return null;
  }

  const devicePolls = createDevicePollPacer();

  /**
   * The device grant's own rules, before the library sees the request: only the command-line tool
   * may start a device authorization (a client registered with the grant before it was reserved
   * included), and a poll of the token endpoint sooner than the interval is told `slow_down`
   * (RFC 8628 §3.5; the library does not pace polls itself).
   */
  function deviceGrantRefusal(path: string, request: Incoming, body: string | undefined): Response | null {
    const device = path === `${OAUTH_PREFIX}/device/auth`;
    const token = path === `${OAUTH_PREFIX}/token`;
    if ((!device && !token) || request.method !== 'POST' || body === undefined) return null;
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) return null;
    const params = new URLSearchParams(body);
    if (device && !mayUseDeviceGrant(params.get('client_id'))) {
      return Response.json(
        {
          error: 'unauthorized_client',
          error_description: "the device authorization grant is reserved for this service's own command-line tool (wfctl)",
        },
        { status: 400, headers: { 'cache-control': 'no-store' } },
      );
    }
    const deviceCode = params.get('device_code');
    if (token && params.get('grant_type') === DEVICE_CODE_GRANT && deviceCode && devicePolls.tooSoon(deviceCode)) {
      return Response.json(
        { error: 'slow_down', error_description: 'polling too quickly: wait 5 seconds more between polls than before' },
        { status: 400, headers: { 'cache-control': 'no-store' } },
      );
    }
    return null;
  }

  const sweep = () => store.sweepExpired();
  const sweeping = setInterval(() => {
    sweep().catch((error: unknown) => deps.log.warn({ err: error }, 'removing expired OAuth records failed'));
  }, SWEEP_EVERY_MS);
  sweeping.unref();

  return {
    issuer,
    sweep,
    close() {
      clearInterval(sweeping);
    },
    async handle(request, url, scope) {
      const path = url.pathname;
      if (path === AS_METADATA || path.startsWith(`${AS_METADATA}/`) || path === OIDC_METADATA || path.startsWith(`${OIDC_METADATA}/`)) {
        if (request.method !== 'GET' && request.method !== 'HEAD')
          throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { method: request.method, path });
        return metadata(request);
      }
      const prm = PRM_PATH.exec(path);
      if (prm) {
        let deploymentId: string;
        try {
          deploymentId = decodeURIComponent(prm[1]!);
        } catch {
          return jsonNotFound();
        }
        const exists = await store.deploymentAccess(deploymentId);
        // An anonymous deployment needs no credential: there is nothing to protect, so nothing is
        // published. An unknown id gets metadata like a private deployment's, so that this path,
        // like the endpoint's 401, does not say which private deployments exist.
        if (exists?.allowAnonymous) return jsonNotFound();
        // For the form of the address the client was given (`localhost` or `127.0.0.1`), which
        // the metadata's resource must match; only forms the service answers for.
        return Response.json(protectedResourceMetadata(baseUrlReachedBy(config.publicBaseUrl, url), deploymentId, issuer), {
          headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
        });
      }
      // Discovery paths answer JSON where nothing is published, never the dashboard's HTML.
      if (path.startsWith('/.well-known/')) return jsonNotFound();
      if (path !== OAUTH_PREFIX && !path.startsWith(`${OAUTH_PREFIX}/`)) return null;
      const refused = await charge(request, path, scope);
      if (refused) return refused;
      let body: string | undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const registering = path === `${OAUTH_PREFIX}/register` && request.method === 'POST';
        body = await readBodyText(request, registering ? CLIENT_METADATA_LIMITS.bodyBytes : 64 * 1024);
        if (registering) {
          // Before anything is added, what has expired goes (the sweep also runs on a timer).
          await store.sweepIfDue();
          try {
            assertJsonDepth(body, 'the registration');
          } catch (error) {
            const message = error instanceof AppError ? error.message : 'the registration is not valid JSON';
            return Response.json(
              { error: 'invalid_client_metadata', error_description: message },
              { status: 400, headers: { 'cache-control': 'no-store' } },
            );
          }
          const checked = checkRegistration(body);
          if (checked.error) return Response.json(checked.error, { status: 400, headers: { 'cache-control': 'no-store' } });
          body = checked.body;
        }
        const refusedDevice = deviceGrantRefusal(path, request, body);
        if (refusedDevice) return refusedDevice;
      }
      return forward(request, url, body);
    },
    verifyAccessToken,
    async authenticateAccessToken(token) {
      const verified = await verifyAccessToken(token);
      const user = verified ? await store.findUser(verified.userId) : null;
      if (!verified || !user) {
        throw new AppError('UNAUTHORIZED', 'the access token is unknown, expired or revoked: refresh it, or connect again', {
          reason: 'invalid_token',
        });
      }
      return {
        userId: user.id,
        email: user.email,
        credential: { kind: 'oauth', clientId: verified.clientId, grantId: verified.grantId, deploymentId: verified.deploymentId },
      };
    },
  };

  async function verifyAccessToken(token: string): Promise<VerifiedAccessToken | null> {
    const found = await provider.AccessToken.find(token);
    if (!found || !found.accountId || !found.grantId || found.isExpired) return null;
    // A token whose grant is gone (disconnected, revoked for reuse, lapsed) is refused, even one
    // written after the revocation by a token request that was still running.
    const grant = await provider.Grant.find(found.grantId);
    if (!grant || grant.accountId !== found.accountId || grant.clientId !== found.clientId) return null;
    const audience = typeof found.aud === 'string' ? found.aud : Array.isArray(found.aud) ? found.aud[0] : undefined;
    if (isApiResource(config.publicBaseUrl, audience))
      return { userId: found.accountId, clientId: found.clientId!, grantId: found.grantId, deploymentId: null };
    const deploymentId = audience ? deploymentOfResource(config.publicBaseUrl, audience) : null;
    if (!deploymentId) return null;
    return { userId: found.accountId, clientId: found.clientId!, grantId: found.grantId, deploymentId };
  }
}
