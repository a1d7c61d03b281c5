import { looksLikeApiKey } from '../api-keys/secret.js';
import { WEBHOOK_PATH } from '../billing/webhook.js';
import type { DashboardAssets } from '../dashboard/static.js';
import { AppError } from '../errors.js';
import { answerGraphQL, type GraphQLEntry } from '../graphql/http.js';
import type { Incoming } from '../http/incoming.js';
import { textResponse, type Reply } from '../http/text-response.js';
import { INSTALL_PREFIX } from '../install/http.js';
import { ADDRESS_BUDGET, addressKey, isNavigation } from '../limits/http.js';
import { limitInto, type RateLimiter } from '../limits/rate-limit.js';
import { MCP_PATH } from '../mcp/endpoint.js';
import { authorizationServerRoute } from '../metrics/labels.js';
import type { AuthorizationServer } from '../oauth/authorization-server.js';
import { PRM_PATH } from '../oauth/resource.js';
import type { BrowserSignIn } from '../oauth/sign-in.js';
import { successResponse } from '../rest/envelope.js';
import { referencePage } from '../rest/reference.js';
import { pathForErrors } from '../text.js';
import { useBrowserSession, type EdgeScope } from './request-scope.js';

/**
 * The route table of the whole service: which face answers a path. Every face is built at
 * composition (src/app.ts) and handed in as `Faces`; a route only picks its face and labels the
 * request for logs and metrics.
 */

/** Paths of the API and the protocols: never answered with the dashboard's pages. */
const API_PATH = /^\/(?:v1|graphql|oauth|\.well-known|healthz|readyz|metrics)(?:\/|$)/;

/** The tool endpoint at an install address with its key (install/http.ts, "The key-bound endpoint"). */
const KEY_BOUND_MCP_PATH = /^\/v1\/install\/([^/]+)\/([^/]+)\/mcp$/;

/** Where the manifest JSON Schema is served, relative to the service root (spec 2.8, 9). */
const MANIFEST_SCHEMA_PATH = '/v1/schemas/manifest/v1.0';

type FaceHandler = (request: Incoming, url: URL, scope: EdgeScope) => Promise<Reply>;

/** The database as the probes see it (src/db/ answers it; a face does not reach the database itself). */
export interface DatabaseProbe {
  kind: string;
  health(): { ok: true } | { ok: false; reason: string };
  ping(timeoutMs?: number): Promise<void>;
}

/** The faces the routes hand a request to, as the composition root built them. */
export interface Faces {
  db: DatabaseProbe;
  limiter: RateLimiter;
  /** True once SIGTERM has come: /readyz fails. */
  isDraining(): boolean;
  metrics(request: Incoming, onRefused: () => Promise<void>): Promise<Reply>;
  graphql: GraphQLEntry;
  authorizationServer: AuthorizationServer;
  browser: BrowserSignIn;
  billingWebhook(request: Incoming): Promise<Reply>;
  /** The OpenAPI document's and the manifest schema's JSON texts, made once. */
  openApiJson: string;
  manifestSchemaJson: string;
  mcp: { handle(request: Incoming, url: URL, deploymentId: string, scope: EdgeScope): Promise<Reply> };
  install: { handle: FaceHandler };
  rest: { handle(request: Incoming, url: URL, path: string, scope: EdgeScope): Promise<Reply> };
  /** The page of a team invitation's link (src/teams/http.ts). */
  invitations: { handle(request: Incoming, url: URL): Promise<Reply | null> };
  dashboard: DashboardAssets;
  metricsPath: string;
}

function healthz(faces: Faces, scope: EdgeScope): Reply {
  scope.route = 'GET /healthz';
  // Liveness: fails only when this instance cannot recover by itself (docs/operations.md).
  const health = faces.db.health();
  if (!health.ok) throw new AppError('SERVICE_UNAVAILABLE', health.reason, { check: 'database_pool' }, { 'Retry-After': '10' });
  return successResponse({ status: 'ok' });
}

async function readyz(faces: Faces, scope: EdgeScope): Promise<Reply> {
  const { db } = faces;
  scope.route = 'GET /readyz';
  if (faces.isDraining())
    throw new AppError('SERVICE_UNAVAILABLE', 'the service is shutting down', { draining: true }, { 'Retry-After': '2' });
  const health = db.health();
  if (!health.ok) throw new AppError('SERVICE_UNAVAILABLE', health.reason, { database: db.kind }, { 'Retry-After': '10' });
  try {
    await db.ping(2000);
    return successResponse({ status: 'ready', database: db.kind });
  } catch {
    throw new AppError('SERVICE_UNAVAILABLE', 'the database does not answer', { database: db.kind }, { 'Retry-After': '2' });
  }
}

/** The documents served as they are: OpenAPI, the manifest schema and the API reference page. */
function documentOf(faces: Faces, path: string, scope: EdgeScope): Reply | null {
  if (path === '/v1/openapi.json') {
    scope.route = 'GET /v1/openapi.json';
    return textResponse(faces.openApiJson, { headers: { 'content-type': 'application/json; charset=utf-8' } });
  }
  if (path === MANIFEST_SCHEMA_PATH) {
    scope.route = `GET ${MANIFEST_SCHEMA_PATH}`;
    return textResponse(faces.manifestSchemaJson, {
      headers: { 'content-type': 'application/schema+json; charset=utf-8', 'cache-control': 'public, max-age=3600' },
    });
  }
  if (path === '/v1/reference' || path === '/v1/docs') {
    scope.route = 'GET /v1/reference';
    return textResponse(referencePage('/v1/openapi.json'), { headers: { 'content-type': 'text/html; charset=utf-8' } });
  }
  return null;
}

/** The pages and protocol documents of sign-in and OAuth, or null when none answers the path. */
async function signInFaces(faces: Faces, request: Incoming, url: URL, scope: EdgeScope): Promise<Reply | null> {
  const path = url.pathname;
  if (path.startsWith('/oauth') || path.startsWith('/.well-known/')) {
    const answer = await faces.authorizationServer.handle(request, url, scope);
    if (answer) {
      scope.route = `${request.method} ${authorizationServerRoute(path, PRM_PATH.test(path))}`;
      return answer;
    }
  }
  if (path.startsWith('/sign-')) {
    const signIn = await faces.browser.handle(request, url, scope.clientIp);
    if (signIn) {
      scope.route = `${request.method} ${path}`;
      return signIn;
    }
  }
  return null;
}

/** Answers a request that the dashboard's files did not: the face its path names. */
export async function routeRequest(faces: Faces, request: Incoming, url: URL, scope: EdgeScope): Promise<Reply> {
  const path = url.pathname;
  if (path === '/healthz') return healthz(faces, scope);
  if (path === '/readyz') return readyz(faces, scope);
  if (path === faces.metricsPath) {
    scope.route = `${request.method} ${faces.metricsPath}`;
    return faces.metrics(request, () => limitInto(scope.headers, faces.limiter, addressKey(scope.clientIp), ADDRESS_BUDGET));
  }
  if (path === '/graphql')
    return answerGraphQL(faces.graphql, request, scope, () => {
      useBrowserSession(faces.browser, request, scope);
      return scope.authenticate();
    });
  const signIn = await signInFaces(faces, request, url, scope);
  if (signIn) return signIn;
  if (path === WEBHOOK_PATH) {
    scope.route = `POST ${WEBHOOK_PATH}`;
    return faces.billingWebhook(request);
  }
  const document = documentOf(faces, path, scope);
  if (document) return document;
  if (path.startsWith('/invitations/')) {
    const invitation = await faces.invitations.handle(request, url);
    if (invitation) {
      scope.route = `${request.method} /invitations/:token`;
      return invitation;
    }
  }
  const mcpMatch = MCP_PATH.exec(path);
  if (mcpMatch) return faces.mcp.handle(request, url, mcpMatch[1]!, scope);
  const keyBound = KEY_BOUND_MCP_PATH.exec(path);
  if (keyBound && looksLikeApiKey(keyBound[2]!)) {
    // The tool endpoint at an address with its key (the key is the scope's credential): served as
    // the endpoint's own address, so nothing the endpoint passes on carries the key.
    const endpoint = new URL(`/v1/mcp/${keyBound[1]}${url.search}`, url);
    const reply = await faces.mcp.handle(request, endpoint, keyBound[1]!, scope);
    scope.route = `${request.method} /v1/install/:deploymentId/:key/mcp`;
    return reply;
  }
  if (path.startsWith(INSTALL_PREFIX)) return faces.install.handle(request, url, scope);
  if (path === '/v1' || path.startsWith('/v1/')) return faces.rest.handle(request, url, path.slice(3) || '/', scope);
  // A browser's page load of an unknown path outside the API gets the dashboard's own "page not
  // found" (the page shell answered 404, so its router shows it); a program gets the JSON 404.
  if (isNavigation(request) && !API_PATH.test(path)) {
    scope.route = `${request.method} /(dashboard)`;
    return faces.dashboard.notFound(request);
  }
  const shown = pathForErrors(path);
  throw new AppError('NOT_FOUND', `there is no route ${request.method} ${shown}`, { method: request.method, path: shown });
}
