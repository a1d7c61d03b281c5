import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
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
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { toAppError } from '../graphql/errors.js';
import { fetchHeadersOf, type Incoming } from '../http/incoming.js';
import { AppError, errorTable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Adapter } from '../manifest/types.js';
import { callTool, catalogFor, getPrompt, type Catalog, type RenderableWorkflow } from './render/index.js';
import { mainToolName } from './render/names.js';
import { JSONRPC, negotiateVersion, type ProtocolVersion } from './protocol.js';

/**
 * One MCP request answered by the official SDK: a fresh `Server` and a stateless
 * Streamable HTTP transport in JSON-response mode per request, so nothing outlives the request
 * and any instance can answer any request. What a connection settled at `initialize` comes in
 * as `Connection` (from the signed session id); the endpoint has already checked framing,
 * access and the adapter.
 */
export interface Connection {
  deploymentName: string;
  deploymentDescription: string | null;
  adapter: Adapter;
  protocolVersion: ProtocolVersion;
  /** Loaded on first need, so ping and initialize never read the workflows. */
  workflows(): Promise<RenderableWorkflow[]>;
  log: Logger;
}

// The SDK builds an Ajv instance per Server unless given one; a Server is built per request.
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

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

/**
 * The request as the SDK's transport wants to see it: a Fetch API Request with Accept naming JSON
 * and event streams, a JSON Content-Type and the connection's protocol version. This endpoint is
 * more lenient (any Accept, the version from the session), so those headers are set on a copy; a
 * Request that already has them, as a conforming client sends after initialize, is passed as it is.
 */
function forTransport(request: Incoming, protocolVersion: ProtocolVersion): Request {
  const accept = request.headers.get('accept') ?? '';
  const conforming =
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    /^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '') &&
    request.headers.get('mcp-protocol-version') === protocolVersion;
  if (conforming && request instanceof Request) return request;
  const headers = fetchHeadersOf(request);
  headers.set('accept', 'application/json, text/event-stream');
  headers.set('content-type', 'application/json');
  headers.set('mcp-protocol-version', protocolVersion);
  return new Request(request.url, { method: 'POST', headers });
}

export async function answer(message: JSONRPCMessage, request: Incoming, conn: Connection): Promise<Response> {
  // Fields MCP added in 2025-06-18 (titles, output schemas, structured results) stay out of older sessions.
  const modern = conn.protocolVersion >= '2025-06-18';
  let loaded: Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }> | undefined;
  const catalog = () =>
    (loaded ??= conn.workflows().then((workflows) => ({ workflows, catalog: catalogFor(workflows, conn.adapter) })));
  const noCursor = (cursor: unknown) => {
    // Every list fits one page, so no cursor was ever handed out.
    if (cursor !== undefined) throw new RpcError(JSONRPC.INVALID_PARAMS, 'Invalid params: unknown cursor (every list of this server fits in one page)');
  };

  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: CAPABILITIES, jsonSchemaValidator: SHARED_VALIDATOR });
  server.onerror = (error) => conn.log.debug({ err: error }, 'MCP protocol notice');
  const handle = <T>(fn: () => T | Promise<T>) =>
    Promise.resolve()
      .then(fn)
      .catch((error: unknown) => {
        throw toRpcError(error, conn.log);
      });

  server.setRequestHandler(InitializeRequestSchema, (req) =>
    handle(() => ({
      protocolVersion: negotiateVersion(req.params.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: modern ? { name: SERVER_NAME, title: conn.deploymentName, version: SERVER_VERSION } : { name: SERVER_NAME, version: SERVER_VERSION },
      instructions: instructionsFor(conn),
    })),
  );

  server.setRequestHandler(ListToolsRequestSchema, (req) =>
    handle(async () => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog();
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

  server.setRequestHandler(CallToolRequestSchema, (req) =>
    handle(async () => {
      const { workflows, catalog: c } = await catalog();
      const result = callTool(c, workflows, req.params.name, req.params.arguments ?? {});
      return modern ? { content: result.content, structuredContent: result.structuredContent } : { content: result.content };
    }),
  );

  server.setRequestHandler(ListPromptsRequestSchema, (req) =>
    handle(async () => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog();
      return {
        prompts: c.prompts.map((p) => ({ name: p.name, ...(modern ? { title: p.title } : {}), description: p.description, arguments: p.arguments })),
      };
    }),
  );

  server.setRequestHandler(GetPromptRequestSchema, (req) =>
    handle(async () => {
      const { workflows, catalog: c } = await catalog();
      return { ...getPrompt(c, workflows, req.params.name, req.params.arguments ?? {}) };
    }),
  );

  server.setRequestHandler(ListResourcesRequestSchema, (req) =>
    handle(async () => {
      noCursor(req.params?.cursor);
      const { workflows } = await catalog();
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

  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) =>
    handle(() => {
      noCursor(req.params?.cursor);
      return { resourceTemplates: [] };
    }),
  );

  server.setRequestHandler(ReadResourceRequestSchema, (req) =>
    handle(async () => {
      const { workflows } = await catalog();
      const workflow = workflows.find((w) => manifestUri(w.workflowId) === req.params.uri);
      if (!workflow) throw new RpcError(JSONRPC.RESOURCE_NOT_FOUND, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
      return { contents: [{ uri: req.params.uri, mimeType: 'application/json', text: `${JSON.stringify(workflow.manifest, null, 2)}\n` }] };
    }),
  );

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  // The body was read and checked already; the transport gets it parsed, with the headers it insists on.
  // The server and transport are not closed afterwards: with JSON responses the answer is complete
  // when this returns, no handler, timer or stream of theirs is left, and both are garbage. Closing
  // (as the SDK's examples do when the HTTP response closes) only built a "connection closed" error
  // with its stack trace for no pending request, a measurable share of each tools/call.
  return transport.handleRequest(forTransport(request, conn.protocolVersion), { parsedBody: message });
}
