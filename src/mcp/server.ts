import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { toAppError } from '../graphql/errors.js';
import { AppError, errorTable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Adapter } from '../manifest/types.js';
import { callTool, catalogFor, getPrompt, type Catalog, type RenderableWorkflow } from './render/index.js';
import { mainToolName } from './render/names.js';
import { JSONRPC, negotiateVersion, type ProtocolVersion } from './protocol.js';

/**
 * MCP requests answered by the official SDK: one `Server` per endpoint, fed through an in-process
 * transport (`Dispatch`) that hands it each request with an id of its own and returns the answer
 * to the HTTP request that brought it. Nothing about a connection is kept between requests: what
 * a connection settled at `initialize` comes in with each request as `Connection` (from the signed
 * session id), so any instance can answer any request. The endpoint has already checked framing,
 * access and the adapter.
 */
export interface Connection {
  deploymentName: string;
  deploymentDescription: string | null;
  adapter: Adapter;
  protocolVersion: ProtocolVersion;
  /** Loaded on first need, so ping and initialize never read the workflows. */
  workflows(): Promise<RenderableWorkflow[]>;
}

const SERVER_NAME = 'workflow-service';
const SERVER_VERSION = '0.1.0';

const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  prompts: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
};

/** The plan tools only read the deployment's workflows; clients may run them without asking. */
const TOOL_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function manifestUri(workflowId: string): string {
  return `workflow://${encodeURIComponent(workflowId)}/manifest`;
}

/** An error the SDK turns into a JSON-RPC error object as is (numeric code, plain message). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function toRpcError(error: unknown, log: Logger): RpcError {
  if (error instanceof RpcError) return error;
  const { appError, unexpected } = error instanceof AppError ? { appError: error, unexpected: false } : toAppError(error);
  if (unexpected) log.error({ err: error }, 'unexpected error in the tool endpoint');
  // VALIDATION_ERROR maps to -32602 in the table, which is what MCP asks for bad arguments and unknown names.
  return new RpcError(errorTable[appError.code].jsonRpc, appError.message, { code: appError.code, ...appError.details });
}

function instructionsFor(conn: Connection): string {
  const about = conn.deploymentDescription ? ` ${conn.deploymentDescription.trim()}` : '';
  return (
    `Workflows of the deployment "${conn.deploymentName}".${about} ` +
    'Each tool returns the step-by-step plan of one workflow for the task you pass it; follow that plan. ' +
    "Each prompt sends the same plan as a message, and each resource is a workflow's manifest."
  );
}

/** A request handed to the server and not answered yet. */
interface Pending {
  conn: Connection;
  /** The connection's workflows and catalog, read at most once per request. */
  loaded?: Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }>;
  settle(message: JSONRPCMessage): void;
}

/**
 * The SDK `Transport` between the endpoint and its one `Server`. Requests from many HTTP
 * requests are in flight at once, and clients pick their ids freely, so each is given an id of
 * this transport's own; the answer the server sends for that id goes back to its HTTP request
 * with the client's id restored. Notifications and responses are never passed on: in a stateless
 * endpoint they have nothing to act on (a cancellation could only name another client's request).
 */
class Dispatch implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** What the server sends: answers to requests handed to it (it sends no requests of its own). */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'number') return;
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.settle(message);
  }

  pendingOf(id: RequestId): Pending {
    const pending = this.pending.get(id as number);
    // Only requests handed in by `request` reach a handler.
    if (!pending) throw new Error(`no pending request ${String(id)}`);
    return pending;
  }

  /** Hands `message` to the server under an id of its own and waits for the answer. */
  request(message: JSONRPCRequest, conn: Connection): Promise<JSONRPCMessage> {
    const id = this.nextId;
    this.nextId = id === Number.MAX_SAFE_INTEGER ? 1 : id + 1;
    return new Promise((resolve) => {
      this.pending.set(id, {
        conn,
        settle: (answer) => {
          (answer as { id: RequestId }).id = message.id;
          resolve(answer);
        },
      });
      this.onmessage?.({ ...message, id });
    });
  }
}

export interface McpServer {
  /** The JSON-RPC response (result or error) to one request, as JSON text. */
  answer(request: JSONRPCRequest, conn: Connection): Promise<string>;
}

export function createMcpServer(log: Logger): McpServer {
  const transport = new Dispatch();
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: CAPABILITIES });
  server.onerror = (error) => log.debug({ err: error }, 'MCP protocol notice');

  /** Runs a handler for the request `extra` names, with its connection, turning errors into JSON-RPC errors. */
  const handle =
    <R, T>(fn: (req: R, conn: Connection, modern: boolean, pending: Pending) => T | Promise<T>) =>
    (req: R, extra: { requestId: RequestId }): Promise<T> =>
      Promise.resolve()
        .then(() => {
          const pending = transport.pendingOf(extra.requestId);
          // Fields MCP added in 2025-06-18 (titles, output schemas, structured results) stay out of older sessions.
          return fn(req, pending.conn, pending.conn.protocolVersion >= '2025-06-18', pending);
        })
        .catch((error: unknown) => {
          throw toRpcError(error, log);
        });
  const catalog = (pending: Pending) =>
    (pending.loaded ??= pending.conn.workflows().then((workflows) => ({ workflows, catalog: catalogFor(workflows, pending.conn.adapter) })));
  const noCursor = (cursor: unknown) => {
    // Every list fits one page, so no cursor was ever handed out.
    if (cursor !== undefined) throw new RpcError(JSONRPC.INVALID_PARAMS, 'Invalid params: unknown cursor (every list of this server fits in one page)');
  };

  // Replaces the SDK's own initialize handler, which would keep the client's capabilities on the shared server.
  server.setRequestHandler(
    InitializeRequestSchema,
    handle((req, conn, modern) => ({
      protocolVersion: negotiateVersion(req.params.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: modern ? { name: SERVER_NAME, title: conn.deploymentName, version: SERVER_VERSION } : { name: SERVER_NAME, version: SERVER_VERSION },
      instructions: instructionsFor(conn),
    })),
  );

  server.setRequestHandler(
    ListToolsRequestSchema,
    handle(async (req, _conn, modern, pending) => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog(pending);
      return {
        tools: c.tools.map((t) => ({
          name: t.name,
          ...(modern ? { title: t.title } : {}),
          description: t.description,
          inputSchema: t.inputSchema as { type: 'object' },
          ...(modern ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
          annotations: TOOL_ANNOTATIONS,
        })),
      };
    }),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    handle(async (req, _conn, modern, pending) => {
      const { workflows, catalog: c } = await catalog(pending);
      const result = callTool(c, workflows, req.params.name, req.params.arguments ?? {});
      return modern ? { content: result.content, structuredContent: result.structuredContent } : { content: result.content };
    }),
  );

  server.setRequestHandler(
    ListPromptsRequestSchema,
    handle(async (req, _conn, modern, pending) => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog(pending);
      return {
        prompts: c.prompts.map((p) => ({ name: p.name, ...(modern ? { title: p.title } : {}), description: p.description, arguments: p.arguments })),
      };
    }),
  );

  server.setRequestHandler(
    GetPromptRequestSchema,
    handle(async (req, _conn, _modern, pending) => {
      const { workflows, catalog: c } = await catalog(pending);
      return { ...getPrompt(c, workflows, req.params.name, req.params.arguments ?? {}) };
    }),
  );

  server.setRequestHandler(
    ListResourcesRequestSchema,
    handle(async (req, _conn, modern, pending) => {
      noCursor(req.params?.cursor);
      const { workflows } = await catalog(pending);
      return {
        resources: workflows.map((w) => ({
          uri: manifestUri(w.workflowId),
          name: `${mainToolName(w.name, w.workflowId)}_manifest`,
          ...(modern ? { title: `${w.name} (manifest, version ${w.version})` } : {}),
          description: `The manifest of workflow "${w.name}" at version ${w.version}, as this deployment uses it.`,
          mimeType: 'application/json',
        })),
      };
    }),
  );

  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    handle((req) => {
      noCursor(req.params?.cursor);
      return { resourceTemplates: [] };
    }),
  );

  server.setRequestHandler(
    ReadResourceRequestSchema,
    handle(async (req, _conn, _modern, pending) => {
      const { workflows } = await catalog(pending);
      const workflow = workflows.find((w) => manifestUri(w.workflowId) === req.params.uri);
      if (!workflow) throw new RpcError(JSONRPC.RESOURCE_NOT_FOUND, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
      return { contents: [{ uri: req.params.uri, mimeType: 'application/json', text: `${JSON.stringify(workflow.manifest, null, 2)}\n` }] };
    }),
  );

  // Connecting only wires the transport's callbacks (its start() does nothing), so it is done before any request.
  void server.connect(transport);

  return {
    async answer(request, conn) {
      return JSON.stringify(await transport.request(request, conn));
    },
  };
}
