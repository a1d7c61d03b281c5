import type { IncomingMessage, ServerResponse } from 'node:http';
import inject from 'light-my-request';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import type { Viewer } from '../auth/viewer.js';
import type { Logger } from '../logger.js';
import { createAdapterFactory } from './adapter.js';
import { createClientMetadataPolicy } from './client-metadata.js';
import { API_SCOPE, apiResourceServerInfo, cliClient, deviceFlowFeature, isApiResource } from './device-flow.js';
import { createInteractions, INTERACTION_PATH } from './interaction.js';
import { loadAuthorizationServerKeys } from './keys.js';
import { checkRegistration } from './redirect-uris.js';
import { deploymentOfResource, endpointResource, MCP_SCOPE, PRM_PATH, protectedResourceMetadata } from './resource.js';
import type { BrowserSignIn } from './sign-in.js';

/**
 * The service's own OAuth 2.1 authorization server for MCP clients (docs/decisions.md, "OAuth for
 * MCP clients"): oidc-provider, mounted under /oauth with its metadata at the RFC 8414 well-known
 * path. It signs the user in through the browser sign-in (src/oauth/sign-in.ts), asks for consent
 * per deployment, and issues opaque access tokens bound to one deployment's tool endpoint.
 */

const OAUTH_PREFIX = '/oauth';
/** Access tokens live about an hour; clients refresh on a 401 and retry. */
const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';

interface VerifiedAccessToken {
  userId: string;
  clientId: string;
  grantId: string;
  /** null: a token of the command-line tool for the API (src/oauth/device-flow.ts). */
  deploymentId: string | null;
}

export interface AuthorizationServer {
  /** Answers /oauth/* and the authorization server's well-known paths; null for other paths. */
  handle(request: Incoming, url: URL): Promise<Reply | null>;
  /** The access token's user and the deployment it is bound to, or null when it is unknown, expired or revoked. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | null>;
  /** The viewer of an access token (UNAUTHORIZED, `invalid_token`, when it is unknown, expired or revoked). */
  authenticateAccessToken(token: string): Promise<Viewer>;
  readonly issuer: string;
}

function jsonNotFound(path: string): Response {
  return Response.json(
    { error: { code: 'NOT_FOUND', message: `nothing is published at ${path}` } },
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

export async function createAuthorizationServer(deps: {
  config: Config;
  db: Database;
  clock: Clock;
  browser: BrowserSignIn;
  log: Logger;
}): Promise<AuthorizationServer> {
  const { config, db, clock } = deps;
  const publicUrl = new URL(config.publicBaseUrl);
  const issuer = publicUrl.origin;
  const keys = await loadAuthorizationServerKeys({ jwks: config.oauthJwks, dataDir: config.dataDir });
  const prisma = db.prisma;
  const clientMetadata = createClientMetadataPolicy({ allowLoopback: config.oauthClientMetadataLoopback });

  const configuration: Configuration = {
    adapter: createAdapterFactory(db, clock),
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
    claims: { openid: ['sub'], email: ['email'] },
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
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx: KoaContextWithOIDC) => (ctx.oidc.params?.resource as string | undefined) ?? undefined,
        useGrantedResource: () => true,
        async getResourceServerInfo(ctx: KoaContextWithOIDC, resource: string) {
          const api = apiResourceServerInfo(ctx, config.publicBaseUrl, resource, ACCESS_TOKEN_TTL_SECONDS);
          if (api) return api;
          const deploymentId = deploymentOfResource(config.publicBaseUrl, resource);
          if (!deploymentId || !(await prisma.deployment.findUnique({ where: { id: deploymentId }, select: { id: true } }))) {
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
        allowClient: (_ctx: KoaContextWithOIDC, client: { redirectUris?: string[] }) =>
          clientMetadata.allowClient(client.redirectUris ?? []),
        cacheDuration: { min: 60, max: 24 * 60 * 60 },
        // The type definitions predate this (experimental) feature of the library.
      } as never,
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: 15 * 60,
      DeviceCode: 10 * 60,
      Session: 24 * 60 * 60,
      IdToken: 60 * 60,
      // Each refresh gives a new refresh token good for the full period again.
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
    },
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
      const user = await prisma.user.findUnique({ where: { id: sub }, select: { id: true, email: true } });
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, email: user.email ?? undefined }) };
    },
    renderError(ctx, out) {
      ctx.type = 'json';
      ctx.body = out;
    },
    enableHttpPostMethods: false,
  };

  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  // Errors the library answers as server_error are the service's own faults: logged like any other.
  provider.on('server_error', (_ctx: unknown, error: Error) =>
    deps.log.error({ err: error }, 'unexpected error in the authorization server'),
  );
  // Private deployments are their owner's alone (spec 5.3): another user's is not named on the consent page.
  async function deploymentName(deploymentId: string, userId: string): Promise<string | null> {
    const row = await prisma.deployment.findFirst({
      where: { id: deploymentId, OR: [{ ownerId: userId }, { allowAnonymous: true }] },
      select: { name: true },
    });
    return row?.name ?? null;
  }
  const interactions = createInteractions({ provider, config, browser: deps.browser, deploymentName });
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
    const answer = await inject(
      (req, res) => {
        dispatch(request, req, res).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ error: 'server_error', error_description: error instanceof Error ? error.message : 'unexpected error' }),
          );
        });
      },
      { method: request.method as 'GET', url: `${url.pathname}${url.search}`, headers, payload: body },
    );
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

  return {
    issuer,
    async handle(request, url) {
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
          return jsonNotFound(path);
        }
        const exists = await prisma.deployment.findUnique({ where: { id: deploymentId }, select: { allowAnonymous: true } });
        // An anonymous deployment needs no credential: there is nothing to protect, so nothing is
        // published. An unknown id gets metadata like a private deployment's, so that this path,
        // like the endpoint's 401, does not say which private deployments exist.
        if (exists?.allowAnonymous) return jsonNotFound(path);
        return Response.json(protectedResourceMetadata(config.publicBaseUrl, deploymentId, issuer), {
          headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
        });
      }
      // Discovery paths answer JSON where nothing is published, never the dashboard's HTML.
      if (path.startsWith('/.well-known/')) return jsonNotFound(path);
      if (path !== OAUTH_PREFIX && !path.startsWith(`${OAUTH_PREFIX}/`)) return null;
      let body: string | undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        body = await readBodyText(request, 64 * 1024);
        if (path === `${OAUTH_PREFIX}/register` && request.method === 'POST') {
          const checked = checkRegistration(body);
          if (checked.error) return Response.json(checked.error, { status: 400, headers: { 'cache-control': 'no-store' } });
          body = checked.body;
        }
      }
      return forward(request, url, body);
    },
    verifyAccessToken,
    async authenticateAccessToken(token) {
      const verified = await verifyAccessToken(token);
      const user = verified
        ? await prisma.user.findUnique({ where: { id: verified.userId }, select: { id: true, email: true, issuer: true, subject: true } })
        : null;
      if (!verified || !user) {
        throw new AppError('UNAUTHORIZED', 'the access token is unknown, expired or revoked: refresh it, or connect again', {
          reason: 'invalid_token',
        });
      }
      return {
        userId: user.id,
        email: user.email,
        issuer: user.issuer,
        subject: user.subject,
        credential: { kind: 'oauth', clientId: verified.clientId, grantId: verified.grantId, deploymentId: verified.deploymentId },
      };
    },
  };

  async function verifyAccessToken(token: string): Promise<VerifiedAccessToken | null> {
    const found = await provider.AccessToken.find(token);
    if (!found || !found.accountId || !found.grantId || found.isExpired) return null;
    const audience = typeof found.aud === 'string' ? found.aud : Array.isArray(found.aud) ? found.aud[0] : undefined;
    if (isApiResource(config.publicBaseUrl, audience))
      return { userId: found.accountId, clientId: found.clientId!, grantId: found.grantId, deploymentId: null };
    const deploymentId = audience ? deploymentOfResource(config.publicBaseUrl, audience) : null;
    if (!deploymentId) return null;
    return { userId: found.accountId, clientId: found.clientId!, grantId: found.grantId, deploymentId };
  }
}
