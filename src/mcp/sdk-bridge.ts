import {
  classifyInboundRequest,
  PerRequestHTTPServerTransport,
  type AuthInfo,
  type InboundClassificationOutcome,
  type InboundHttpRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpRequestContext,
  type MessageExtraInfo,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { BoundedCache } from '../cache/bounded.js';
import type { Adapter } from '../manifest/types.js';
import { isServedMethod, MODERN_VERSION, type ProtocolVersion } from './protocol.js';
import type { Catalog, RenderableWorkflow } from './render/index.js';
import type { ServedSkill } from './skills.js';

/**
 * The bridge between the endpoint and the SDK's long-lived servers. The endpoint hands requests to
 * them through two in-process transports, in place of the SDK's per-request transport and server
 * (the composition of the SDK's dualEraStreamableHttp example): building a server with its handlers
 * for every request cost more than the rest of the request (docs/decisions.md, "The endpoint: SDK,
 * but stateless"). What the endpoint settled for a request reaches the handlers as its
 * `CallContext`, through the SDK's pass-through `authInfo` (`authInfoFor` on the way in,
 * `callContextOf` in the handlers), and the answer comes back as the JSON-RPC message the server
 * sent, serialized once when the reply is written. This relies on SDK behaviour that is not part of
 * its documented surface; test/mcp/sdk-bridge.test.ts pins each piece, so an SDK release that
 * changes one fails there, not in production.
 */

/** What the endpoint settled for one request: the deployment, adapter and revision it is answered for. */
export interface Connection {
  deploymentName: string;
  deploymentDescription: string | null;
  adapter: Adapter;
  protocolVersion: ProtocolVersion;
  /** Loaded on first need, so ping and initialize never read the workflows. */
  workflows(): Promise<RenderableWorkflow[]>;
}

/** The per-request context of one MCP call: its connection, and what its handlers read once and share. */
export class CallContext {
  loaded?: Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }>;
  skills?: Promise<ServedSkill[]>;

  constructor(readonly conn: Connection) {}
}

/** The key of the call context in `authInfo.extra`, the one per-request channel the SDK passes through. */
const CALL_CONTEXT = 'workflowServiceCall';

const NO_SCOPES: string[] = [];

/** The `authInfo` that carries `call` through the SDK to the handlers (no token: the endpoint has checked access). */
export function authInfoFor(call: CallContext): AuthInfo {
  return { token: '', clientId: '', scopes: NO_SCOPES, extra: { [CALL_CONTEXT]: call } };
}

/** The call context a handler (`ServerContext`) or the SDK handler's server factory (`McpRequestContext`) was given. */
export function callContextOf(ctx: ServerContext | McpRequestContext): CallContext {
  const authInfo = 'mcpReq' in ctx ? ctx.http?.authInfo : ctx.authInfo;
  const call = authInfo?.extra?.[CALL_CONTEXT];
  // Only the endpoint calls the SDK, and it always hands one in.
  if (!(call instanceof CallContext)) throw new Error('MCP request without its call context');
  return call;
}

/** A 2026-07-28 request as the SDK classified it (`classifyInboundRequest`), with the standard headers it was classified with. */
export interface ModernEdge {
  route: InboundClassificationOutcome;
  headers: InboundHttpRequest;
}

/**
 * A request's 2026-07-28 classification, or undefined for the 2025 era. A message without `_meta`
 * and without a 2026-07-28 header has no envelope claim: 2025 era at once; anything else is
 * classified by the SDK's own classifier (what its isLegacyRequest runs).
 */
export function modernEdgeOf(requestHeaders: { get(name: string): string | null }, message: unknown): ModernEdge | undefined {
  const hasMeta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta !== undefined;
  const headerVersion = requestHeaders.get('mcp-protocol-version');
  if (!hasMeta && (headerVersion === null || headerVersion < MODERN_VERSION)) return undefined;
  const headers = {
    httpMethod: 'POST',
    protocolVersionHeader: headerVersion ?? undefined,
    mcpMethodHeader: requestHeaders.get('mcp-method') ?? undefined,
    mcpNameHeader: requestHeaders.get('mcp-name') ?? undefined,
  };
  const route = classified(headers, message);
  return route.kind === 'legacy' ? undefined : { route, headers };
}

/** The most classifications kept (the cache `mcp_classifications`), and the longest key one is kept under. */
const CLASSIFIED_ENTRIES = 512;
const CLASSIFIED_KEY_CHARS = 4096;
const classifications = new BoundedCache<string, InboundClassificationOutcome>('mcp_classifications', CLASSIFIED_ENTRIES);

/**
 * `classifyInboundRequest`, remembered for 2026-07-28 requests. The SDK checks every message
 * against three schemas of the whole message (one of them failing) and its envelope, 5–10 µs a
 * request, and a client sends the same message again and again but for its id. The key is all
 * that the classifier is given except the id's value: the headers, whether the id is a string or
 * an integer (what the SDK's id schema tells apart), and the rest of the message as JSON text. The
 * classifier is a function of what it is given, and a modern request's outcome refers to the
 * message alone, so a remembered outcome is handed back with the message at hand in it. Only those
 * outcomes are kept; everything else is classified by the SDK each time
 * (test/mcp/sdk-bridge.test.ts compares both on every kind of outcome; docs/decisions.md, "Performance").
 */
function classified(headers: Omit<InboundHttpRequest, 'body'>, message: unknown): InboundClassificationOutcome {
  const key = classificationKey(headers, message);
  const known = key === undefined ? undefined : classifications.get(key);
  if (known) return { ...known, message } as InboundClassificationOutcome;
  const route = classifyInboundRequest({ ...headers, body: message });
  if (key !== undefined && route.kind === 'modern' && route.messageKind === 'request') classifications.set(key, route);
  return route;
}

/** The key of a request's classification; undefined for anything but an object with a string or safe-integer id. */
function classificationKey(headers: Omit<InboundHttpRequest, 'body'>, message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { id, ...rest } = message as Record<string, unknown>;
  const idKind = typeof id === 'string' ? 'string' : Number.isSafeInteger(id) ? 'integer' : undefined;
  if (idKind === undefined) return undefined;
  const key = JSON.stringify([
    headers.httpMethod,
    headers.protocolVersionHeader,
    headers.mcpMethodHeader,
    headers.mcpNameHeader,
    idKind,
    rest,
  ]);
  return key.length <= CLASSIFIED_KEY_CHARS ? key : undefined;
}

/**
 * The requests in flight through one in-process transport. Requests from many HTTP requests are in
 * flight at once, and clients pick their ids freely, so each is given an id of the transport's own;
 * the answer the server sends for that id goes back to its HTTP request with the client's id restored.
 */
class InFlightRequests {
  private nextId = 1;
  private readonly pending = new Map<number, (message: JSONRPCMessage) => void>();

  /** Hands `message` to `deliver` under an id of its own; the promise settles with the answer to it. */
  open(message: JSONRPCRequest, deliver: (message: JSONRPCRequest) => void): Promise<JSONRPCMessage> {
    const id = this.nextId;
    this.nextId = id === Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    const answer = new Promise<JSONRPCMessage>((resolve) => {
      this.pending.set(id, (sent) => {
        (sent as { id: unknown }).id = message.id;
        resolve(sent);
      });
    });
    deliver({ ...message, id });
    return answer;
  }

  /** An answer the server sent: settles its request (it sends no requests of its own). */
  settle(message: JSONRPCMessage): void {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'number') return;
    const settle = this.pending.get(id);
    if (!settle) return;
    this.pending.delete(id);
    settle(message);
  }
}

/**
 * The SDK `Transport` between the endpoint and the long-lived 2025-era `Server`. Notifications and
 * responses are never passed on: in a stateless endpoint they have nothing to act on.
 */
export class Dispatch implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly inFlight = new InFlightRequests();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.inFlight.settle(message);
  }

  /** Hands `message` to the server with its connection, and waits for the answer. */
  request(message: JSONRPCRequest, authInfo: AuthInfo): Promise<JSONRPCMessage> {
    return this.inFlight.open(message, (sent) => this.onmessage?.(sent, { authInfo }));
  }
}

const MODERN_CLASSIFICATION = { era: 'modern', revision: MODERN_VERSION } as const;

/**
 * The in-process transport of a long-lived 2026-07-28 `Server`. It is the SDK's per-request
 * transport only in name: connecting a server to one is how the SDK binds a server to the
 * 2026-07-28 revision (its encode seam then adds `resultType`, the cache fields and the server
 * information in `_meta`, as for the handler's servers), and every method is replaced so that it
 * carries many requests at once, as `Dispatch` does. An answer sent while the message is still being
 * handed over comes from the protocol layer's own gates, before any handler ran: that request is
 * given back (null) for `createMcpHandler` to answer with the HTTP status the SDK gives it.
 */
export class ModernDispatch extends PerRequestHTTPServerTransport {
  private readonly inFlight = new InFlightRequests();
  private handingOver = false;
  private gated = false;

  constructor() {
    super({ classification: MODERN_CLASSIFICATION });
  }

  override async start(): Promise<void> {}

  override async close(): Promise<void> {
    this.onclose?.();
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    if (this.handingOver) this.gated = true;
    this.inFlight.settle(message);
  }

  request(message: JSONRPCRequest, authInfo: AuthInfo): Promise<JSONRPCMessage> | null {
    this.gated = false;
    const answer = this.inFlight.open(message, (sent) => {
      this.handingOver = true;
      try {
        this.onmessage?.(sent, { authInfo, classification: MODERN_CLASSIFICATION });
      } finally {
        this.handingOver = false;
      }
    });
    return this.gated ? null : answer;
  }
}

/** Where a request's `Mcp-Name` header comes from in its body (SEP-2243), for the methods served here. */
const NAME_SOURCE: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * Whether a 2026-07-28 request is one `createMcpHandler` would hand to its server unchanged: a
 * request classified modern for this revision by the SDK, whose standard headers repeat the
 * body exactly (no whitespace, no encoded value), for a method this server has a handler for.
 * Anything else (every refusal, every header the SDK would have to decode) is left to the handler.
 */
export function isPlainModernRequest(edge: ModernEdge, message: JSONRPCRequest): boolean {
  const { route, headers } = edge;
  if (route.kind !== 'modern' || route.messageKind !== 'request' || route.classification.revision !== MODERN_VERSION) return false;
  if (headers.protocolVersionHeader !== MODERN_VERSION || headers.mcpMethodHeader !== message.method) return false;
  if (message.method === 'initialize' || !isServedMethod(message.method)) return false;
  const field = NAME_SOURCE[message.method];
  if (field === undefined) return true;
  const value = (message.params as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' && value !== '' && !/^[\s=]|\s$/.test(value) && headers.mcpNameHeader === value;
}
