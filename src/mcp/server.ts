import {
  createMcpHandler,
  ProtocolError,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpRequestContext,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toAppError } from '../graphql/errors.js';
import { AppError, errorTable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Adapter } from '../manifest/types.js';
import { callTool, catalogFor, getPrompt, type Catalog, type RenderableWorkflow } from './render/index.js';
import { mainToolName } from './render/names.js';
import { ALL_VERSIONS, JSONRPC, MODERN_VERSION, type ProtocolVersion } from './protocol.js';

/**
 * MCP requests answered by the official SDK (v2): 2026-07-28 requests by its `createMcpHandler`
 * (modern leg only; `legacy: 'reject'`), 2025-era requests by its Streamable HTTP transport in
 * stateless JSON mode. Both legs build their `Server` from the one factory below, so the two eras
 * cannot drift apart. Nothing about a connection is kept between requests: what the endpoint
 * settled for this request (deployment, adapter, revision) comes in as `Connection`, carried to
 * the handlers through the SDK's pass-through `authInfo`. The endpoint has already checked
 * framing, access and the adapter.
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

/** The service's icon (a plan: three connected steps), inline so that clients fetch nothing from elsewhere. */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#1f4e79"/>' +
  '<path d="M18 20h14M32 20v24M32 44h14" stroke="#fff" stroke-width="4" fill="none"/>' +
  '<circle cx="16" cy="20" r="6" fill="#fff"/><circle cx="32" cy="32" r="6" fill="#9fd3ff"/><circle cx="48" cy="44" r="6" fill="#fff"/></svg>';
export const SERVER_ICONS = [{ src: `data:image/svg+xml;base64,${Buffer.from(ICON_SVG).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] }];

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

function toRpcError(error: unknown, log: Logger): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const { appError, unexpected } = error instanceof AppError ? { appError: error, unexpected: false } : toAppError(error);
  if (unexpected) log.error({ err: error }, 'unexpected error in the tool endpoint');
  // VALIDATION_ERROR maps to -32602 in the table, which is what MCP asks for bad arguments and unknown names.
  return new ProtocolError(errorTable[appError.code].jsonRpc, appError.message, { code: appError.code, ...appError.details });
}

function instructionsFor(conn: Connection): string {
  const about = conn.deploymentDescription ? ` ${conn.deploymentDescription.trim()}` : '';
  return (
    `Workflows of the deployment "${conn.deploymentName}".${about} ` +
    'Each tool returns the step-by-step plan of one workflow for the task you pass it; follow that plan. ' +
    "Each prompt sends the same plan as a message, and each resource is a workflow's manifest."
  );
}

/** What the endpoint hands the SDK for one request: the connection, and its catalog once read. */
interface Exchange {
  conn: Connection;
  loaded?: Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }>;
}

const EXCHANGE = 'workflowServiceExchange';

function exchangeOf(ctx: ServerContext | McpRequestContext): Exchange {
  const extra = (ctx as { http?: { authInfo?: AuthInfo } }).http?.authInfo?.extra ?? (ctx as McpRequestContext).authInfo?.extra;
  const exchange = extra?.[EXCHANGE] as Exchange | undefined;
  // Only the endpoint calls the SDK, and it always hands one in.
  if (!exchange) throw new Error('MCP request without its connection');
  return exchange;
}

/** One SDK server for one request, with the deployment's name and instructions. */
function buildServer(conn: Connection, log: Logger): Server {
  const modernFields = conn.protocolVersion >= '2025-06-18';
  // Icons arrived in 2025-11-25, titles in 2025-06-18.
  const icons = conn.protocolVersion >= '2025-11-25' ? { icons: SERVER_ICONS } : {};
  const server = new Server(
    modernFields ? { name: SERVER_NAME, title: conn.deploymentName, version: SERVER_VERSION, ...icons } : { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: CAPABILITIES, instructions: instructionsFor(conn), supportedProtocolVersions: ALL_VERSIONS },
  );
  server.onerror = (error) => log.debug({ err: error }, 'MCP protocol notice');

  /** Runs a handler with its exchange, turning errors into JSON-RPC errors. */
  const handle =
    <R, T>(fn: (req: R, exchange: Exchange, modern: boolean) => T | Promise<T>) =>
    (req: R, ctx: ServerContext): Promise<T> =>
      Promise.resolve()
        .then(() => {
          const exchange = exchangeOf(ctx);
          // Fields MCP added in 2025-06-18 (titles, output schemas, structured results) stay out of older sessions.
          return fn(req, exchange, exchange.conn.protocolVersion >= '2025-06-18');
        })
        .catch((error: unknown) => {
          throw toRpcError(error, log);
        });
  const catalog = (exchange: Exchange) =>
    (exchange.loaded ??= exchange.conn.workflows().then((workflows) => ({ workflows, catalog: catalogFor(workflows, exchange.conn.adapter) })));
  const noCursor = (cursor: unknown) => {
    // Every list fits one page, so no cursor was ever handed out.
    if (cursor !== undefined) throw new ProtocolError(JSONRPC.INVALID_PARAMS, 'Invalid params: unknown cursor (every list of this server fits in one page)');
  };

  server.setRequestHandler(
    'tools/list',
    handle(async (req, exchange, modern) => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog(exchange);
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
    'tools/call',
    handle(async (req, exchange, modern) => {
      const { workflows, catalog: c } = await catalog(exchange);
      const result = callTool(c, workflows, req.params.name, req.params.arguments ?? {});
      return modern ? { content: result.content, structuredContent: result.structuredContent } : { content: result.content };
    }),
  );

  server.setRequestHandler(
    'prompts/list',
    handle(async (req, exchange, modern) => {
      noCursor(req.params?.cursor);
      const { catalog: c } = await catalog(exchange);
      return {
        prompts: c.prompts.map((p) => ({ name: p.name, ...(modern ? { title: p.title } : {}), description: p.description, arguments: p.arguments })),
      };
    }),
  );

  server.setRequestHandler(
    'prompts/get',
    handle(async (req, exchange) => {
      const { workflows, catalog: c } = await catalog(exchange);
      return { ...getPrompt(c, workflows, req.params.name, req.params.arguments ?? {}) };
    }),
  );

  server.setRequestHandler(
    'resources/list',
    handle(async (req, exchange, modern) => {
      noCursor(req.params?.cursor);
      const { workflows } = await catalog(exchange);
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
    'resources/templates/list',
    handle((req) => {
      noCursor(req.params?.cursor);
      return { resourceTemplates: [] };
    }),
  );

  server.setRequestHandler(
    'resources/read',
    handle(async (req, exchange) => {
      const { workflows } = await catalog(exchange);
      const workflow = workflows.find((w) => manifestUri(w.workflowId) === req.params.uri);
      if (!workflow) {
        // 2026-07-28 asks for -32602 with exactly { uri }; the 2025 revisions used -32002.
        const code = exchange.conn.protocolVersion === MODERN_VERSION ? JSONRPC.INVALID_PARAMS : JSONRPC.RESOURCE_NOT_FOUND;
        throw new ProtocolError(code, `Resource not found: ${req.params.uri}`, { uri: req.params.uri });
      }
      return { contents: [{ uri: req.params.uri, mimeType: 'application/json', text: `${JSON.stringify(workflow.manifest, null, 2)}\n` }] };
    }),
  );

  return server;
}

export interface McpServer {
  /** The SDK's HTTP answer to one JSON-RPC request of either era; `parsedBody` is the request's body, already parsed. */
  answer(request: Request, parsedBody: unknown, conn: Connection): Promise<Response>;
}

export function createMcpServer(log: Logger): McpServer {
  const factory = (ctx: McpRequestContext) => buildServer(exchangeOf(ctx).conn, log);
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    onerror: (error) => log.debug({ err: error }, 'MCP request refused by the SDK'),
  });
  const authInfoOf = (conn: Connection): AuthInfo => ({ token: '', clientId: '', scopes: [], extra: { [EXCHANGE]: { conn } satisfies Exchange } });

  return {
    async answer(request, parsedBody, conn) {
      const authInfo = authInfoOf(conn);
      if (conn.protocolVersion === MODERN_VERSION) return modern.fetch(request, { authInfo, parsedBody });
      // 2025 era: one stateless exchange answered with JSON, the SDK's own transport.
      const server = buildServer(conn, log);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      // Not closed afterwards: a JSON-mode exchange holds no timer or stream once answered, so both are
      // simply dropped (closing would build a "connection closed" error with its stack for nothing).
      return transport.handleRequest(request, { authInfo, parsedBody });
    },
  };
}
