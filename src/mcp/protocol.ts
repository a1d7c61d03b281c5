import { textResponse, type TextReply } from '../http/text-response.js';
import { specTypeSchemas, type JSONRPCMessage, type StandardSchemaV1, type StandardSchemaV1Sync } from '@modelcontextprotocol/server';
import { AppError, errorTable } from '../errors.js';
import { ADAPTERS, CLIENT_NAME_PREFIXES, DEFAULT_ADAPTER, isAdapter, type Adapter } from '../manifest/adapter-list.js';

/**
 * The wire rules of the tool endpoint that sit in front of the SDK: protocol revisions, the
 * adapter of a connection, and JSON-RPC 2.0 framing with the specification's error codes.
 */

/** The sessionless revision: no initialize, each request carries its revision and client in `_meta`. */
export const MODERN_VERSION = '2026-07-28';
/**
 * The initialize-based revisions, newest first: the first is what a client asking for anything
 * else at `initialize` is offered.
 */
export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type LegacyVersion = (typeof SUPPORTED_VERSIONS)[number];
export type ProtocolVersion = LegacyVersion | typeof MODERN_VERSION;
/** Every revision served, newest first, as the SDK takes them. */
export const ALL_VERSIONS: string[] = [MODERN_VERSION, ...SUPPORTED_VERSIONS];
const LATEST_VERSION: LegacyVersion = SUPPORTED_VERSIONS[0];
/** What Streamable HTTP says to assume when a request carries no MCP-Protocol-Version. */
export const DEFAULT_VERSION: LegacyVersion = '2025-03-26';

export function isSupportedVersion(v: unknown): v is LegacyVersion {
  return (SUPPORTED_VERSIONS as readonly unknown[]).includes(v);
}

/** MCP lifecycle: the client's revision when supported, otherwise the latest one. */
export function negotiateVersion(requested: string): LegacyVersion {
  return isSupportedVersion(requested) ? requested : LATEST_VERSION;
}

/**
 * The adapter a client gets from its `clientInfo.name`. Names are compared lower-cased with
 * everything but letters and digits removed, so "claude-code", "Claude Code" and "claude_code"
 * all match; Cursor's editors report names such as "cursor-vscode".
 */
export function adapterForClient(clientName: string): Adapter {
  const key = clientName.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const [prefix, adapter] of CLIENT_NAME_PREFIXES) if (key.startsWith(prefix)) return adapter;
  return DEFAULT_ADAPTER;
}

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** MCP: a resources/read for a URI the server does not have. */
  RESOURCE_NOT_FOUND: -32002,
  /** MCP 2026-07-28: a request naming a protocol revision the server does not serve. */
  UNSUPPORTED_VERSION: -32022,
} as const;

export type JsonRpcId = string | number;

/** A failure answered as one JSON-RPC error object with an HTTP status. */
export class RpcFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly id: JsonRpcId | null = null,
    readonly data?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RpcFailure';
  }

  static fromAppError(error: AppError, id: JsonRpcId | null = null): RpcFailure {
    return new RpcFailure(
      error.status,
      errorTable[error.code].jsonRpc,
      error.message,
      id,
      { code: error.code, ...error.details },
      error.headers,
    );
  }

  toResponse(): TextReply {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.data !== undefined) error.data = this.data;
    return textResponse(JSON.stringify({ jsonrpc: '2.0', id: this.id, error }), {
      status: this.status,
      headers: { 'content-type': 'application/json', ...this.headers },
    });
  }
}

export type InboundMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; message: JSONRPCMessage; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; message: JSONRPCMessage }
  | { kind: 'response'; message: JSONRPCMessage };

const invalid = (message: string, id: JsonRpcId | null = null) =>
  new RpcFailure(400, JSONRPC.INVALID_REQUEST, `Invalid Request: ${message}`, id);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * One JSON-RPC 2.0 message from a request body, with a served request's params checked. Batches
 * are refused: MCP 2025-06-18 removed them and a stateless endpoint gains nothing from them.
 */
export function parseMessage(text: string): InboundMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new RpcFailure(400, JSONRPC.PARSE_ERROR, `Parse error: the body is not valid JSON (${(error as Error).message})`);
  }
  if (Array.isArray(raw)) throw invalid('batches (JSON arrays) are not supported; send one JSON-RPC message per HTTP request');
  if (!isObject(raw)) throw invalid('the body must be a JSON-RPC 2.0 object');
  const id = typeof raw.id === 'string' || (typeof raw.id === 'number' && Number.isFinite(raw.id)) ? raw.id : null;
  if (raw.jsonrpc !== '2.0') throw invalid(`jsonrpc must be "2.0" (got ${JSON.stringify(raw.jsonrpc) ?? 'nothing'})`, id);
  if ('id' in raw && id === null) throw invalid('id must be a string or a number', null);
  if ('method' in raw && typeof raw.method !== 'string') throw invalid('method must be a string', id);
  if (raw.params !== undefined) {
    if (Array.isArray(raw.params)) throw new RpcFailure(200, JSONRPC.INVALID_PARAMS, 'Invalid params: params must be an object', id);
    if (!isObject(raw.params)) throw invalid('params must be an object', id);
  }
  const message = raw as unknown as JSONRPCMessage;
  if (typeof raw.method === 'string' && id !== null && isServedMethod(raw.method)) {
    // A request for a served method: its params are checked against the method's schema. That
    // schema checks all the envelope's schema checks beyond what is checked above (params and
    // their _meta, with the same schema) and more, so when it passes on a message with the
    // request's keys alone and a whole-number id, the envelope's check is not run again; when it
    // fails, the envelope is checked first, as for any other message, for the same answer.
    const issues = paramIssues(raw.method, message);
    if (issues || !hasRequestShape(raw)) checkEnvelope(raw, id);
    if (issues) throw paramsFailure(raw.method, issues, id);
    return { kind: 'request', id, method: raw.method, message, params: (raw.params as Record<string, unknown>) ?? {} };
  }
  checkEnvelope(raw, id);
  if (typeof raw.method === 'string') {
    if (id === null) return { kind: 'notification', method: raw.method, message };
    return { kind: 'request', id, method: raw.method, message, params: (raw.params as Record<string, unknown>) ?? {} };
  }
  return { kind: 'response', message };
}

function checkEnvelope(raw: Record<string, unknown>, id: JsonRpcId | null): void {
  const parsed = specTypeSchemas.JSONRPCMessage['~standard'].validate(raw);
  if (parsed.issues) throw invalid(`not a JSON-RPC request, notification or response (${describeIssues(parsed.issues)})`, id);
}

/** Only the keys a JSON-RPC request may have (its schema is strict), and an id that is a string or a whole number. */
function hasRequestShape(raw: Record<string, unknown>): boolean {
  for (const key in raw) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  return typeof raw.id === 'string' || Number.isInteger(raw.id);
}

/** The methods the endpoint serves, with the SDK schema their params must satisfy. */
const REQUEST_SCHEMAS: Record<string, StandardSchemaV1Sync> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'prompts/list': specTypeSchemas.ListPromptsRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
};

export function isServedMethod(method: string): boolean {
  return Object.hasOwn(REQUEST_SCHEMAS, method);
}

/**
 * A served request's params are checked before the SDK sees them: the SDK would answer a schema
 * failure with -32603 and a dump of its validator's output, the specification asks for -32602.
 */
function paramIssues(method: string, message: JSONRPCMessage): readonly StandardSchemaV1.Issue[] | undefined {
  return REQUEST_SCHEMAS[method]!['~standard'].validate(message).issues;
}

function paramsFailure(method: string, issues: readonly StandardSchemaV1.Issue[], id: JsonRpcId): RpcFailure {
  return new RpcFailure(200, JSONRPC.INVALID_PARAMS, `Invalid params for ${method}: ${describeIssues(issues)}`, id);
}

function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  const key = (segment: PropertyKey | { key: PropertyKey }) => String(typeof segment === 'object' ? segment.key : segment);
  return issues
    .slice(0, 5)
    .map((i) => `${i.path?.length ? i.path.map(key).join('.') : 'message'}: ${i.message}`)
    .join('; ');
}

/** The `adapter` query parameter of the endpoint URL, when present. */
export function adapterFromQuery(url: URL): Adapter | null {
  const value = url.searchParams.get('adapter');
  if (value === null) return null;
  if (!isAdapter(value)) {
    throw new RpcFailure(
      400,
      JSONRPC.INVALID_PARAMS,
      `unknown adapter '${value}' in the adapter query parameter; use ${ADAPTERS.join(', ')}`,
      null,
      { allowed: [...ADAPTERS] },
    );
  }
  return value;
}
