import type { AuditEvent } from '../teams/audit.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { assertJsonDepth, readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import { capturedResponse, heldNodeRequest, nodeRequestFrom } from '../http/node-exchange.js';
import { textResponse, type Reply } from '../http/text-response.js';
import type { Viewer } from '../auth/viewer.js';
import { addressKey } from '../limits/http.js';
import { namedBudget, type BudgetName } from '../limits/plans.js';
import { limitInto, type RateLimiter, type RateLimitHeaders } from '../limits/rate-limit.js';
import type { Logger } from '../logger.js';
import { withOAuthRequest, type OAuthStore } from '../oauth-store/index.js';
import { createClientMetadataPolicy } from './client-metadata.js';
import { browserErrorMiddleware } from './browser-errors.js';
import { createDevicePollPacer, isApiResource, mayUseDeviceGrant } from './device-flow.js';
import { createInteractions, INTERACTION_PATH, type Interactions } from './interaction.js';
import { loadAuthorizationServerKeys } from './keys.js';
import { loadKnownClientDocuments } from './known-clients.js';
import { authorizationProblemPage } from './pages.js';
import { OAUTH_PREFIX, providerConfiguration } from './provider-configuration.js';
import { CLIENT_METADATA_LIMITS, checkRegistration, DEVICE_CODE_GRANT } from './redirect-uris.js';
import { baseUrlReachedBy, deploymentOfResource, PRM_PATH, protectedResourceMetadata } from './resource.js';
import type { BrowserSignIn } from './sign-in.js';

/**
 * The service's own OAuth 2.1 authorization server for MCP clients (docs/decisions.md, "OAuth for
 * MCP clients"): oidc-provider, mounted under /oauth with its metadata at the RFC 8414 well-known
 * path. It signs the user in through the browser sign-in (src/oauth/sign-in.ts), asks for consent
 * per deployment, and issues opaque access tokens bound to one deployment's tool endpoint. Its
 * records live in src/oauth-store/ (this module is a face: it never touches the database).
 *
 * The library is a node:http handler (`provider.callback()`): it gets the HTTP server's own request
 * while that request's body is unread (src/http/node-exchange.ts, heldNodeRequest), otherwise a node:http
 * request made of the request's parts and the body read here; its answer is kept by a node:http
 * response (src/http/node-exchange.ts) and goes back through the pipeline like any other.
 */

const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';
/** How often expired records are removed (also once at start). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const METADATA_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'public, max-age=3600',
  'access-control-allow-origin': '*',
};

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

/** What the request handling below works with: the library's instance and the pieces built around it. */
interface ServerContext {
  config: Config;
  store: OAuthStore;
  limiter: RateLimiter;
  log: Logger;
  publicUrl: URL;
  issuer: string;
  provider: Provider;
  callback: ReturnType<Provider['callback']>;
  interactions: Interactions;
  devicePolls: ReturnType<typeof createDevicePollPacer>;
  /** The metadata document's text, made on first use. */
  metadata: Promise<string> | null;
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

function oauthError(status: number, error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status, headers: { 'cache-control': 'no-store' } });
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

function isMetadataPath(path: string): boolean {
  return path === AS_METADATA || path.startsWith(`${AS_METADATA}/`) || path === OIDC_METADATA || path.startsWith(`${OIDC_METADATA}/`);
}

/**
 * Addresses `req` to the public base URL for the library, whatever address reached the service:
 * the links it builds (metadata, redirects) use it. Returns what puts the request's own headers back.
 */
function addressToPublicUrl(req: IncomingMessage, publicUrl: URL): () => void {
  const names = ['host', 'x-forwarded-host', 'x-forwarded-proto'] as const;
  const saved = names.map((name) => req.headers[name]);
  req.headers.host = publicUrl.host;
  req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  delete req.headers['x-forwarded-host'];
  return () => {
    names.forEach((name, i) => {
      if (saved[i] === undefined) delete req.headers[name];
      else req.headers[name] = saved[i] as string;
    });
  };
}

async function dispatch(server: ServerContext, incoming: Incoming | null, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (incoming && req.url?.startsWith(`${INTERACTION_PATH}/`)) {
    await server.interactions.handle(req, res, incoming);
    return;
  }
  await server.callback(req, res);
}

/**
 * Runs `req` through the library (or the interaction pages) within its own request context
 * (src/oauth-store/adapter.ts links a rotation to its new token) and returns the answer.
 */
async function runProvider(server: ServerContext, req: IncomingMessage, incoming: Incoming | null): Promise<Response> {
  const restore = addressToPublicUrl(req, server.publicUrl);
  const { res, answer } = capturedResponse(req);
  try {
    await withOAuthRequest(() =>
      dispatch(server, incoming, req, res).catch((error: unknown) => {
        server.log.error({ err: error }, 'unexpected error in the authorization server');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'server_error', error_description: 'unexpected error' }));
      }),
    );
  } finally {
    restore();
  }
  return answer;
}

/** The request as node:http's: the HTTP server's own while its body is unread, else one of its parts and `body`. */
function forward(server: ServerContext, request: Incoming, url: URL, body?: string): Promise<Response> {
  const held = body === undefined ? heldNodeRequest(request) : null;
  if (held) return runProvider(server, held, request);
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers.entries()) headers[name] = value;
  const req = nodeRequestFrom({ method: request.method, path: `${url.pathname}${url.search}`, headers, body });
  return runProvider(server, req, request);
}

/**
 * The metadata document: the library's discovery document with what the service adds, made once
 * (it depends on the configuration alone) and kept as text.
 */
async function metadataText(server: ServerContext): Promise<string> {
  const req = nodeRequestFrom({ method: 'GET', path: OIDC_METADATA, headers: { accept: 'application/json' } });
  const discovery = await runProvider(server, req, null);
  if (discovery.status !== 200) throw new Error(`the discovery document answered ${discovery.status}`);
  const document = (await discovery.json()) as Record<string, unknown>;
  document.authorization_response_iss_parameter_supported = true;
  document.client_id_metadata_document_supported = true;
  return JSON.stringify(document);
}

async function metadata(server: ServerContext, request: Incoming, path: string): Promise<Reply> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { method: request.method, path });
  server.metadata ??= metadataText(server).catch((error: unknown) => {
    server.metadata = null;
    throw error;
  });
  return textResponse(await server.metadata, { headers: { ...METADATA_HEADERS } });
}

/** The protected resource metadata of a deployment's tool endpoint (RFC 9728). */
async function resourceMetadata(server: ServerContext, url: URL, encodedId: string): Promise<Response> {
  let deploymentId: string;
  try {
    deploymentId = decodeURIComponent(encodedId);
  } catch {
    return jsonNotFound();
  }
  const exists = await server.store.deploymentAccess(deploymentId);
  // An anonymous deployment needs no credential: there is nothing to protect, so nothing is
  // published. An unknown id gets metadata like a private deployment's, so that this path,
  // like the endpoint's 401, does not say which private deployments exist.
  if (exists?.allowAnonymous) return jsonNotFound();
  // For the form of the address the client was given (`localhost` or `127.0.0.1`), which
  // the metadata's resource must match; only forms the service answers for.
  const { publicBaseUrl } = server.config;
  return Response.json(protectedResourceMetadata(baseUrlReachedBy(publicBaseUrl, url), deploymentId, server.issuer), {
    headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
  });
}

/** Charges the request's budgets before any work; a refused browser request gets a page. */
async function charge(server: ServerContext, request: Incoming, path: string, scope: OAuthRequestScope): Promise<Reply | null> {
  for (const budget of budgetsOf(request.method, path)) {
    try {
      await limitInto(scope.headers, server.limiter, `${budget}:${addressKey(scope.clientIp)}`, namedBudget(budget));
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

/**
 * The device grant's own rules, before the library sees the request: only the command-line tool
 * may start a device authorization (a client registered with the grant before it was reserved
 * included), and a poll of the token endpoint sooner than the interval is told `slow_down`
 * (RFC 8628 §3.5; the library does not pace polls itself).
 */
function deviceGrantRefusal(server: ServerContext, path: string, request: Incoming, body: string): Response | null {
  const device = path === `${OAUTH_PREFIX}/device/auth`;
  const token = path === `${OAUTH_PREFIX}/token`;
  if ((!device && !token) || request.method !== 'POST') return null;
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) return null;
  const params = new URLSearchParams(body);
  if (device && !mayUseDeviceGrant(params.get('client_id')))
    return oauthError(
      400,
      'unauthorized_client',
      "the device authorization grant is reserved for this service's own command-line tool (wfctl)",
    );
  const deviceCode = params.get('device_code');
  if (token && params.get('grant_type') === DEVICE_CODE_GRANT && deviceCode && server.devicePolls.tooSoon(deviceCode))
    return oauthError(400, 'slow_down', 'polling too quickly: wait 5 seconds more between polls than before');
  return null;
}

/** A registration's body as the library gets it, or the answer refusing it. */
async function registrationBody(server: ServerContext, body: string): Promise<{ body: string } | { refused: Response }> {
  // Before anything is added, what has expired goes (the sweep also runs on a timer).
  await server.store.sweepIfDue();
  try {
    assertJsonDepth(body, 'the registration');
  } catch (error) {
    const message = error instanceof AppError ? error.message : 'the registration is not valid JSON';
    return { refused: oauthError(400, 'invalid_client_metadata', message) };
  }
  const checked = checkRegistration(body);
  if (checked.error) return { refused: Response.json(checked.error, { status: 400, headers: { 'cache-control': 'no-store' } }) };
  return { body: checked.body };
}

/** A request under /oauth: charged, its body read and checked where the service has rules of its own, then the library's. */
async function handleOAuthPath(server: ServerContext, request: Incoming, url: URL, scope: OAuthRequestScope): Promise<Reply> {
  const path = url.pathname;
  const refused = await charge(server, request, path, scope);
  if (refused) return refused;
  if (request.method === 'GET' || request.method === 'HEAD') return forward(server, request, url);
  const registering = path === `${OAUTH_PREFIX}/register` && request.method === 'POST';
  let body = await readBodyText(request, registering ? CLIENT_METADATA_LIMITS.bodyBytes : 64 * 1024);
  if (registering) {
    const checked = await registrationBody(server, body);
    if ('refused' in checked) return checked.refused;
    body = checked.body;
  }
  return deviceGrantRefusal(server, path, request, body) ?? forward(server, request, url, body);
}

async function handle(server: ServerContext, request: Incoming, url: URL, scope: OAuthRequestScope): Promise<Reply | null> {
  const path = url.pathname;
  if (isMetadataPath(path)) return metadata(server, request, path);
  const prm = PRM_PATH.exec(path);
  if (prm) return resourceMetadata(server, url, prm[1]!);
  // Discovery paths answer JSON where nothing is published, never the dashboard's HTML.
  if (path.startsWith('/.well-known/')) return jsonNotFound();
  if (path !== OAUTH_PREFIX && !path.startsWith(`${OAUTH_PREFIX}/`)) return null;
  return handleOAuthPath(server, request, url, scope);
}

async function verifyAccessToken(server: ServerContext, token: string): Promise<VerifiedAccessToken | null> {
  const { provider, config } = server;
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

async function authenticateAccessToken(server: ServerContext, token: string): Promise<Viewer> {
  const verified = await verifyAccessToken(server, token);
  const user = verified ? await server.store.findUser(verified.userId) : null;
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
}

/** The library's instance for the service, with the error pages and the logging of its own faults. */
async function createProvider(deps: { config: Config; store: OAuthStore; log: Logger }, issuer: string): Promise<Provider> {
  const { config, store, log } = deps;
  const keys = await loadAuthorizationServerKeys({ jwks: config.oauthJwks, dataDir: config.dataDir });
  const clientMetadata = createClientMetadataPolicy({
    allowLoopback: config.oauthClientMetadataLoopback,
    fetch: config.oauthClientMetadataFetch,
    known: loadKnownClientDocuments(config.oauthClientMetadataDir),
    onFallback: (clientId, reason) => log.info({ clientId, reason }, 'using the pinned client ID metadata document'),
  });
  const provider = new Provider(issuer, providerConfiguration({ config, store, keys, clientMetadata }));
  provider.proxy = true;
  provider.use(browserErrorMiddleware());
  // Errors the library answers as server_error are the service's own faults: logged like any other.
  provider.on('server_error', (_ctx: unknown, error: Error) => log.error({ err: error }, 'unexpected error in the authorization server'));
  return provider;
}

export async function createAuthorizationServer(deps: {
  config: Config;
  store: OAuthStore;
  browser: BrowserSignIn;
  limiter: RateLimiter;
  log: Logger;
  /** Writes an entry in a person's audit log (an OAuth connection granted). */
  record: (event: AuditEvent) => Promise<void>;
}): Promise<AuthorizationServer> {
  const { config, store } = deps;
  const publicUrl = new URL(config.publicBaseUrl);
  const issuer = publicUrl.origin;
  const provider = await createProvider(deps, issuer);
  const interactions = createInteractions({ provider, config, browser: deps.browser, store, record: deps.record });
  deps.browser.describeReturnWith(interactions.describeReturn);
  const server: ServerContext = {
    config,
    store,
    limiter: deps.limiter,
    log: deps.log,
    publicUrl,
    issuer,
    provider,
    callback: provider.callback(),
    interactions,
    devicePolls: createDevicePollPacer(),
    metadata: null,
  };
  const sweep = () => store.sweepExpired();
  const sweeping = setInterval(() => {
    sweep().catch((error: unknown) => deps.log.warn({ err: error }, 'removing expired OAuth records failed'));
  }, SWEEP_EVERY_MS);
  sweeping.unref();
  return {
    issuer,
    sweep,
    close: () => clearInterval(sweeping),
    handle: (request, url, scope) => handle(server, request, url, scope),
    verifyAccessToken: (token) => verifyAccessToken(server, token),
    authenticateAccessToken: (token) => authenticateAccessToken(server, token),
  };
}
