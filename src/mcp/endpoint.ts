import { hash } from 'node:crypto';
import type { Incoming } from '../http/incoming.js';
import type { ConnectionCaller } from '../deployments/usage.js';
import { setReplyHeader, textResponse, type Reply } from '../http/text-response.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { readBodyText } from '../http/body.js';
import type { RequestScope } from '../http/scope.js';
import type { Logger } from '../logger.js';
import { DEFAULT_ADAPTER, type Adapter } from '../manifest/adapter-list.js';
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { fetchHeadersOf } from '../http/incoming.js';
import type { Services } from '../services.js';
import {
  adapterForClient,
  adapterFromQuery,
  DEFAULT_VERSION,
  isSupportedVersion,
  JSONRPC,
  MODERN_VERSION,
  negotiateVersion,
  parseMessage,
  RpcFailure,
  SUPPORTED_VERSIONS,
  type InboundMessage,
  type JsonRpcId,
  type LegacyVersion,
  type ProtocolVersion,
} from './protocol.js';
import { createOriginPolicy, type OriginPolicy } from './origin.js';
import { answerText, createMcpServer, type McpAnswer, type McpServer } from './server.js';
import { modernEdgeOf } from './sdk-bridge.js';
import { createSessionCodec, type SessionCodec } from './session.js';
import { baseUrlReachedBy, challengeUnauthorized } from '../oauth/resource.js';

/**
 * POST /v1/mcp/:deploymentId — a deployment's MCP endpoint over Streamable HTTP, answered
 * with JSON and no server-side state, for 2026-07-28 requests (sessionless, `_meta` on each
 * request) and 2025-era `initialize` clients on the same URL. This layer owns HTTP: access
 * (spec 5.3), framing and the JSON-RPC error codes, the request's era (the SDK's own
 * classification), adapter and revision (from `_meta`, or the signed Mcp-Session-Id of the
 * 2025 era), and counting connections; src/mcp/server.ts answers the MCP methods through the SDK.
 */

export const MCP_PATH = /^\/v1\/mcp\/([^/]+)\/?$/;

const SESSION_HEADER = 'mcp-session-id';

/** What every request of the endpoint is served with, built once by `createMcpEndpoint`. */
interface EndpointContext {
  deployments: Services['deployments'];
  config: Config;
  log: Logger;
  sessions: SessionCodec;
  mcpServer: McpServer;
  origins: OriginPolicy;
}

/** The deployment a request reaches, as the endpoint loads it. */
type Target = Awaited<ReturnType<Services['deployments']['loadDeploymentForEndpoint']>>;

/** The adapter and revision a request is answered for, and where the adapter came from. */
interface RequestConnection {
  adapter: Adapter;
  /** The client's `clientInfo.name` when the request carries it (every 2026-07-28 request, a 2025 initialize). */
  clientName: string | null;
  protocolVersion: ProtocolVersion;
  source: 'query' | 'client' | 'session' | 'default';
}

/** The token is checked only when sent: an anonymous deployment ignores it, a private one needs it. */
async function viewerOf(scope: RequestScope, deploymentId: string): Promise<{ viewer: Viewer | null; authError: AppError | null }> {
  if (!scope.hasCredential()) return { viewer: null, authError: null };
  try {
    return { viewer: await scope.authenticate({ face: 'mcp', deploymentId, chargeLater: true }), authError: null };
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED') return { viewer: null, authError: error };
    throw error;
  }
}

async function loadTarget(ctx: EndpointContext, deploymentId: string, scope: RequestScope) {
  const { viewer, authError } = await viewerOf(scope, deploymentId);
  let target;
  try {
    target = await ctx.deployments.loadDeploymentForEndpoint(deploymentId, viewer);
  } catch (error) {
    // A refused request of a signed-in caller counts against their own limit.
    if (viewer) await scope.chargeCaller(null);
    // A bad token says more about what to fix than "send a token".
    if (authError && error instanceof AppError && error.code === 'UNAUTHORIZED') throw authError;
    throw error;
  }
  // Signed-in callers count as users, or for a team's deployment its members as the team; the others per deployment and address.
  if (viewer)
    await scope.chargeCaller(target.teamId && target.callerIsHolder ? { teamId: target.teamId, billingOwnerId: target.accountId } : null);
  else await scope.limitAnonymous(target.deploymentId, target.accountId);
  return { target, caller: callerOf(viewer, scope, target.callerIsHolder) };
}

/**
 * Who is connecting, for counting connections: the signed-in user, else the client's address
 * (hashed: the key is stored). Nothing the client writes in the request names it.
 */
function callerOf(viewer: Viewer | null, scope: RequestScope, isHolder: boolean): ConnectionCaller {
  if (viewer) return { key: `user:${viewer.userId}`, anonymous: !isHolder };
  return { key: `address:${hash('sha256', scope.clientIp, 'base64url').slice(0, 22)}`, anonymous: true };
}

function checkContentType(request: Incoming): void {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be one JSON-RPC message sent as Content-Type: application/json', {
      contentType: type || null,
    });
  }
}

/**
 * The adapter and revision of a 2026-07-28 request: the query parameter wins, else the client
 * information the request carries in `_meta`. A session id has no place in this revision.
 */
function modernConnectionOf(request: Incoming, url: URL, inbound: InboundMessage): RequestConnection {
  const fromQuery = adapterFromQuery(url);
  const id = inbound.kind === 'request' ? inbound.id : null;
  if (request.headers.has(SESSION_HEADER)) {
    throw new RpcFailure(
      400,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: a ${MODERN_VERSION} request carries no Mcp-Session-Id (sessions belong to the initialize-based 2025 revisions); send it without that header`,
      id,
    );
  }
  const meta =
    inbound.kind === 'response' ? undefined : (inbound.message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const claimed = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof claimed === 'string' && claimed !== MODERN_VERSION) {
    throw new RpcFailure(
      400,
      JSONRPC.UNSUPPORTED_VERSION,
      `Unsupported protocol version '${claimed}': this endpoint serves ${MODERN_VERSION} per request, and ${SUPPORTED_VERSIONS.join(', ')} through initialize`,
      id,
      { supported: [MODERN_VERSION], requested: claimed },
    );
  }
  const clientName = (meta?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined)?.name;
  const adapter: Adapter = fromQuery ?? (typeof clientName === 'string' ? adapterForClient(clientName) : DEFAULT_ADAPTER);
  return {
    adapter,
    clientName: typeof clientName === 'string' ? clientName : null,
    protocolVersion: MODERN_VERSION as ProtocolVersion,
    source: fromQuery ? 'query' : typeof clientName === 'string' ? 'client' : 'default',
  };
}

/** The adapter and revision of a 2025-era request: at initialize from the client, later from the session. */
async function connectionOf(
  ctx: EndpointContext,
  request: Incoming,
  url: URL,
  deploymentId: string,
  inbound: InboundMessage,
): Promise<RequestConnection> {
  const fromQuery = adapterFromQuery(url);
  const id = inbound.kind === 'request' ? inbound.id : null;
  if (inbound.kind === 'request' && inbound.method === 'initialize') {
    const params = inbound.params as { protocolVersion: string; clientInfo: { name: string } };
    const adapter = fromQuery ?? adapterForClient(params.clientInfo.name);
    return {
      adapter,
      clientName: params.clientInfo.name,
      protocolVersion: negotiateVersion(params.protocolVersion),
      source: fromQuery ? 'query' : 'client',
    };
  }
  const header = request.headers.get('mcp-protocol-version');
  if (header !== null && !isSupportedVersion(header)) {
    throw new RpcFailure(
      400,
      JSONRPC.INVALID_REQUEST,
      `Invalid Request: unsupported MCP-Protocol-Version '${header}'; supported: ${SUPPORTED_VERSIONS.join(', ')}`,
      id,
    );
  }
  const sessionId = request.headers.get(SESSION_HEADER);
  const claims = sessionId ? await ctx.sessions.read(sessionId) : null;
  if (sessionId && (!claims || claims.deploymentId !== deploymentId)) {
    // 404 tells a Streamable HTTP client to start a new session with initialize.
    throw new RpcFailure(404, -32001, 'Session not found: this Mcp-Session-Id was not issued for this deployment; initialize again', id);
  }
  const adapter: Adapter = fromQuery ?? claims?.adapter ?? DEFAULT_ADAPTER;
  const protocolVersion: ProtocolVersion = (header as ProtocolVersion | null) ?? claims?.protocolVersion ?? DEFAULT_VERSION;
  return { adapter, clientName: null, protocolVersion, source: fromQuery ? 'query' : claims ? 'session' : 'default' };
}

/** Refuses a request for an adapter the deployment has disabled, saying where the adapter came from. */
function checkAdapter(target: Target, conn: RequestConnection, deploymentId: string): void {
  const { adapter, source } = conn;
  if (target.enabledAdapters.includes(adapter)) return;
  const how = source === 'client' ? ' (chosen from clientInfo.name)' : source === 'query' ? ' (from the adapter query parameter)' : '';
  throw new AppError(
    'FORBIDDEN',
    `adapter '${adapter}'${how} is disabled for deployment '${deploymentId}'; enabled: ${target.enabledAdapters.join(', ') || 'none'}`,
    {
      reason: 'adapter_disabled',
      adapter,
      enabledAdapters: target.enabledAdapters,
    },
  );
}

/** The Fetch request the SDK's handler takes for this request, built on first need (the long-lived servers need none). */
function forwardedRequest(request: Incoming, url: URL, body: string): () => Request {
  let forwarded: Request | undefined;
  return () => {
    if (forwarded) return forwarded;
    const headers = fetchHeadersOf(request);
    // A bare client (spec 4.3's curl) sends no Accept; every answer here is JSON anyway.
    headers.set('accept', 'application/json, text/event-stream');
    return (forwarded = new Request(url, { method: 'POST', headers, body }));
  };
}

async function serve(ctx: EndpointContext, request: Incoming, url: URL, deploymentId: string, scope: RequestScope): Promise<Reply> {
  if (request.method !== 'POST') {
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not served here: this endpoint answers POST with JSON and opens no event stream`,
      { allowed: ['POST'] },
      { Allow: 'POST' },
    );
  }
  const { target, caller } = await loadTarget(ctx, deploymentId, scope);
  checkContentType(request);
  const body = await readBodyText(request, ctx.config.bodyLimitBytes);
  const inbound = parseMessage(body);
  const id: JsonRpcId | null = inbound.kind === 'request' ? inbound.id : null;
  try {
    const edge = modernEdgeOf(request.headers, inbound.message);
    const modern = edge !== undefined;
    const conn = modern ? modernConnectionOf(request, url, inbound) : await connectionOf(ctx, request, url, deploymentId, inbound);
    checkAdapter(target, conn, deploymentId);
    // Notifications and responses have nothing to act on in a stateless endpoint: accepted, no body.
    if (inbound.kind !== 'request') return textResponse('', { status: 202 });
    const { adapter, protocolVersion } = conn;
    const answer = await ctx.mcpServer.answer(
      inbound.message as JSONRPCRequest,
      forwardedRequest(request, url, body),
      {
        deploymentName: target.name,
        deploymentDescription: target.description,
        adapter,
        protocolVersion,
        workflows: async () => ctx.deployments.renderableFor(target, adapter),
      },
      edge,
    );
    if (!modern && inbound.method === 'resources/read') legacyResourceNotFound(answer);
    // Every served request belongs to a counted connection, or is refused over the quota (and its
    // answer dropped); a refusal of the request itself serves nothing and counts nothing, nor does ping.
    const served = answer.status === 200 && answer.isResult;
    if (served && inbound.method !== 'ping')
      await ctx.deployments.admitConnection(target, adapter, { ...caller, clientName: conn.clientName });
    const replyHeaders: Record<string, string> = { 'content-type': 'application/json' };
    if (!modern && inbound.method === 'initialize' && served) {
      replyHeaders[SESSION_HEADER] = await ctx.sessions.issue({ deploymentId, adapter, protocolVersion: protocolVersion as LegacyVersion });
    }
    return textResponse(answerText(answer), { status: answer.status, headers: replyHeaders });
  } catch (error) {
    if (error instanceof RpcFailure || error instanceof AppError) throw withId(error, id);
    throw error;
  }
}

/**
 * The SDK sends -32602 for an unknown resource on every revision (2026-07-28 asks for it); the
 * 2025 revisions this endpoint served before name -32002, which 2025 clients keep receiving. A
 * 2025-era answer is always the message a long-lived server sent, changed here in place.
 */
function legacyResourceNotFound(answer: McpAnswer): void {
  if (!('message' in answer) || !('error' in answer.message)) return;
  const { error } = answer.message;
  const data = error.data as { uri?: unknown } | null | undefined;
  if (error.code === JSONRPC.INVALID_PARAMS && typeof data?.uri === 'string' && error.message.startsWith('Resource not found')) {
    error.code = JSONRPC.RESOURCE_NOT_FOUND;
  }
}

function withId(error: RpcFailure | AppError, id: JsonRpcId | null): RpcFailure {
  if (error instanceof AppError) return RpcFailure.fromAppError(error, id);
  return error.id === null && id !== null ? new RpcFailure(error.status, error.code, error.message, id, error.data, error.headers) : error;
}

/** Every answer but the origin checks: the JSON-RPC errors of this layer, or the SDK's answer. */
async function respond(ctx: EndpointContext, request: Incoming, url: URL, rawId: string, scope: RequestScope): Promise<Reply> {
  try {
    let deploymentId: string;
    try {
      deploymentId = decodeURIComponent(rawId);
    } catch {
      throw new AppError('NOT_FOUND', `deployment '${rawId}' was not found`, { id: rawId });
    }
    return await serve(ctx, request, url, deploymentId, scope);
  } catch (error) {
    if (error instanceof RpcFailure) return error.toResponse();
    const appError = AppError.from(error);
    if (appError.unexpected) ctx.log.error({ err: error, requestId: scope.requestId }, 'unexpected error in the tool endpoint');
    return RpcFailure.fromAppError(appError).toResponse();
  }
}

/** One request of the endpoint: the origin checks (and preflight), then its answer with the CORS and challenge headers. */
async function handle(ctx: EndpointContext, request: Incoming, url: URL, rawId: string, scope: RequestScope): Promise<Reply> {
  scope.route = `${request.method} /v1/mcp/:deploymentId`;
  const origin = request.headers.get('origin');
  let cors: Record<string, string>;
  try {
    // Before anything else: a preflight carries no token, and a refused origin learns nothing.
    if (request.method === 'OPTIONS' && origin !== null && request.headers.has('access-control-request-method')) {
      return textResponse('', { status: 204, headers: ctx.origins.preflight(origin) });
    }
    cors = ctx.origins.check(origin);
  } catch (error) {
    if (error instanceof RpcFailure) return error.toResponse();
    throw error;
  }
  const response = await respond(ctx, request, url, rawId, scope);
  challengeUnauthorized(
    response,
    (name, value) => setReplyHeader(response, name, value),
    baseUrlReachedBy(ctx.config.publicBaseUrl, url),
    rawId,
    scope.hasCredential(),
  );
  for (const name in cors) setReplyHeader(response, name, cors[name]!);
  return response;
}

export function createMcpEndpoint(deps: { services: Services; config: Config; log: Logger }) {
  const { services, config, log } = deps;
  const ctx: EndpointContext = {
    deployments: services.deployments,
    config,
    log,
    sessions: createSessionCodec(config),
    mcpServer: createMcpServer(log),
    origins: createOriginPolicy({ publicBaseUrl: config.publicBaseUrl, allowedOrigins: config.mcpAllowedOrigins }),
  };
  return {
    /** `rawId` is the path segment as sent (still percent-encoded). */
    handle: (request: Incoming, url: URL, rawId: string, scope: RequestScope): Promise<Reply> => handle(ctx, request, url, rawId, scope),
  };
}
