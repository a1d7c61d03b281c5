import {
  createMcpHandler,
  McpServer as SdkMcpServer,
  ProtocolError,
  ResourceTemplate,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpRequestContext,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { BoundedCache } from '../cache/bounded.js';
import { AppError, errorTable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Adapter } from '../manifest/types.js';
import {
  callTool,
  catalogFor,
  getPrompt,
  inertWorkflow,
  markedInline,
  namingName,
  type Catalog,
  type RenderableWorkflow,
} from './render/index.js';
import { mainToolName } from './render/names.js';
import type { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { SERVER_ICONS } from './icon.js';
import { createSkillsExtension, type ServedSkill } from './skills.js';
import { ALL_VERSIONS, JSONRPC, MODERN_VERSION, negotiateVersion, type ProtocolVersion } from './protocol.js';
import { Dispatch, isPlainModernRequest, ModernDispatch, type ModernEdge } from './transports.js';
import { promptPage, toolPage } from './tool-list.js';

/**
 * MCP requests answered by the official SDK (v2). 2025-era requests: one long-lived `Server` fed
 * through an in-process transport (`Dispatch`), the composition the SDK documents for keeping an
 * existing 2025 wiring beside its handler. 2026-07-28 requests: a long-lived `Server` per server
 * identity (the deployment's name and description), bound to that revision by the SDK and fed the
 * same way (`ModernDispatch`), for every request `createMcpHandler` would hand to its server
 * unchanged; anything else (a refusal, a header the SDK must decode) goes to that handler (`legacy:
 * 'reject'`, a `Server` per request), so the SDK keeps every refusal and its HTTP status. All are
 * built by `buildServer` with the same handlers, so the eras cannot drift apart. Nothing about a
 * client is kept between requests: what the endpoint settled for this request (deployment,
 * adapter, revision) comes in as `Connection`, carried to the handlers through the SDK's
 * pass-through `authInfo`. The endpoint has already checked framing, access and the adapter.
 */
interface Connection {
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

function manifestUri(workflowId: string): string {
  return `workflow://${encodeURIComponent(workflowId)}/manifest`;
}

function toRpcError(error: unknown, log: Logger): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const appError = AppError.from(error);
  if (appError.unexpected) log.error({ err: error }, 'unexpected error in the tool endpoint');
  // VALIDATION_ERROR maps to -32602 in the table, which is what MCP asks for bad arguments and unknown names.
  return new ProtocolError(errorTable[appError.code].jsonRpc, appError.message, { code: appError.code, ...appError.details });
}

function instructionsFor(conn: Connection): string {
  const about = conn.deploymentDescription ? ` ${conn.deploymentDescription.trim()}` : '';
  return (
    `Workflows of the deployment "${conn.deploymentName}".${about} ` +
    'Each tool returns the step-by-step plan of one workflow for the task you pass it; follow that plan. ' +
    "Each prompt sends the same plan as a message; each workflow:// resource is a workflow's manifest, and each skill:// resource the same plan as an Agent Skill (SKILL.md)."
  );
}

/** What the endpoint hands the SDK for one request: the connection, and its catalog once read. */
interface Exchange {
  conn: Connection;
  loaded?: Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }>;
  skills?: Promise<ServedSkill[]>;
}

const EXCHANGE = 'workflowServiceExchange';

function exchangeOf(ctx: ServerContext | McpRequestContext): Exchange {
  const extra = (ctx as { http?: { authInfo?: AuthInfo } }).http?.authInfo?.extra ?? (ctx as McpRequestContext).authInfo?.extra;
  const exchange = extra?.[EXCHANGE] as Exchange | undefined;
  // Only the endpoint calls the SDK, and it always hands one in.
  if (!exchange) throw new Error('MCP request without its connection');
  return exchange;
}

/** The request's workflows and catalog, read once per request. */
function catalog(exchange: Exchange): Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }> {
  return (exchange.loaded ??= exchange.conn
    .workflows()
    .then(async (workflows) => ({ workflows, catalog: await catalogFor(workflows, exchange.conn.adapter) })));
}

/** Name, title (the deployment's) and icon as the connection's revision has them: titles arrived in 2025-06-18, icons in 2025-11-25. */
function serverInfoFor(conn: Connection) {
  if (conn.protocolVersion < '2025-06-18') return { name: SERVER_NAME, version: SERVER_VERSION };
  const icons = conn.protocolVersion >= '2025-11-25' ? { icons: SERVER_ICONS } : {};
  return { name: SERVER_NAME, title: conn.deploymentName, version: SERVER_VERSION, ...icons };
}

/**
 * An SDK server with the endpoint's handlers: for one 2026-07-28 request (`conn` given: its name
 * and instructions are the deployment's), or the long-lived one of the 2025 era (`conn` null:
 * its `initialize` handler answers with each request's deployment).
 */
function buildServer(conn: Connection | null, log: Logger, skills: SkillsExtension): SdkMcpServer {
  // No capabilities at construction: the SDK would install its own tools and prompts handlers.
  const mcp = new SdkMcpServer(conn ? serverInfoFor(conn) : { name: SERVER_NAME, version: SERVER_VERSION }, {
    ...(conn ? { instructions: instructionsFor(conn) } : {}),
    supportedProtocolVersions: ALL_VERSIONS,
  });
  const server = mcp.server;
  server.registerCapabilities(CAPABILITIES);
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

  if (!conn) {
    // Replaces the SDK's own initialize handler, which would keep one client's identity on the shared server.
    server.setRequestHandler(
      'initialize',
      handle((req, exchange) => ({
        protocolVersion: negotiateVersion(req.params.protocolVersion),
        capabilities: server.getCapabilities(),
        serverInfo: serverInfoFor(exchange.conn),
        instructions: instructionsFor(exchange.conn),
      })),
    );
  }

  server.setRequestHandler(
    'tools/list',
    handle(async (req, exchange, modern) => {
      const { catalog: c } = await catalog(exchange);
      return toolPage(c, modern, req.params?.cursor);
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
      const { catalog: c } = await catalog(exchange);
      return promptPage(c, modern, req.params?.cursor);
    }),
  );

  server.setRequestHandler(
    'prompts/get',
    handle(async (req, exchange) => {
      const { workflows, catalog: c } = await catalog(exchange);
      return { ...getPrompt(c, workflows, req.params.name, req.params.arguments ?? {}) };
    }),
  );

  // Manifests and skills are both resources, so both go through the SDK's resource registry
  // (the skills extension registers its own `skill://` template on it).
  const readManifest = async (uri: URL, ctx: ServerContext) => {
    try {
      const exchange = exchangeOf(ctx);
      const { workflows } = await catalog(exchange);
      const workflow = workflows.find((w) => manifestUri(w.workflowId) === uri.href);
      if (!workflow) {
        // 2026-07-28 asks for -32602 with exactly { uri }; the 2025 revisions used -32002.
        const code = exchange.conn.protocolVersion === MODERN_VERSION ? JSONRPC.INVALID_PARAMS : JSONRPC.RESOURCE_NOT_FOUND;
        throw new ProtocolError(code, `Resource not found: ${uri.href}`, { uri: uri.href });
      }
      // The manifest as agents read it everywhere else: every string its author wrote made inert.
      const manifest = inertWorkflow(workflow).manifest;
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: `${JSON.stringify(manifest, null, 2)}\n` }] };
    } catch (error) {
      throw toRpcError(error, log);
    }
  };
  const listManifests = async (ctx: ServerContext) => {
    try {
      const exchange = exchangeOf(ctx);
      const modern = exchange.conn.protocolVersion >= '2025-06-18';
      const { workflows } = await catalog(exchange);
      return {
        resources: workflows.map((source) => {
          // Another author's name reaches the agent here too: inert, and marked as the author's.
          const w = inertWorkflow(source);
          return {
            uri: manifestUri(w.workflowId),
            name: `${mainToolName(namingName(w), w.workflowId)}_manifest`,
            ...(modern ? { title: `${w.name} (manifest, version ${w.version})` } : {}),
            description: markedInline(w, `The manifest of workflow "${w.name}" at version ${w.version}, as this deployment uses it.`),
            mimeType: 'application/json',
          };
        }),
      };
    } catch (error) {
      throw toRpcError(error, log);
    }
  };
  mcp.registerResource(
    'workflow-manifest',
    new ResourceTemplate('workflow://{workflowId}/manifest', { list: listManifests }),
    { description: "A workflow's manifest, as this deployment uses it.", mimeType: 'application/json' },
    (uri, _variables, ctx) => readManifest(uri, ctx),
  );
  skills.attach(mcp);

  return mcp;
}

/** The long-lived 2026-07-28 servers, one per server identity (a deployment's name and description), the least recently used dropped past this many. */
const MODERN_SERVERS = 256;

/** An answer of the SDK: HTTP status, JSON text, and whether it is a result (not an error). */
interface McpAnswer {
  status: number;
  text: string;
  isResult: boolean;
}

/** The answer the SDK sent through one of the in-process transports. */
function sentAnswer(message: JSONRPCMessage): McpAnswer {
  return { status: 200, text: JSON.stringify(message), isResult: 'result' in message };
}

/** Whether the text of an answer of the SDK's handler is a result (the SDK writes `result` first; anything else is read in full). */
function isResultText(text: string): boolean {
  if (text.startsWith('{"result":')) return true;
  try {
    return (JSON.parse(text) as { result?: unknown }).result !== undefined;
  } catch {
    return false;
  }
}

export interface McpServer {
  /**
   * The SDK's answer to one JSON-RPC request. 2026-07-28 (`edge` given): a plain request by the
   * long-lived server of the deployment's identity, anything else by the SDK's handler, for which
   * `request()` builds the Fetch request it takes (`parsedBody` is its body, already parsed).
   * 2025 era: the message alone, by the long-lived 2025-era server.
   */
  answer(message: JSONRPCRequest, request: () => Request, conn: Connection, edge?: ModernEdge): Promise<McpAnswer>;
}

export function createMcpServer(log: Logger): McpServer {
  // The skills are cached on the request's exchange, like its catalog.
  const skills = createSkillsExtension(
    (ctx) => {
      const exchange = exchangeOf(ctx);
      return {
        adapter: exchange.conn.adapter,
        workflows: () => catalog(exchange).then((c) => c.workflows),
        get skills() {
          return exchange.skills;
        },
        set skills(value) {
          exchange.skills = value;
        },
      };
    },
    (warning) => log.warn({ warning }, 'skill not served'),
  );
  const factory = (ctx: McpRequestContext) => buildServer(exchangeOf(ctx).conn, log, skills);
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    onerror: (error) => log.debug({ err: error }, 'MCP request refused by the SDK'),
  });
  const authInfoOf = (conn: Connection): AuthInfo => ({
    token: '',
    clientId: '',
    scopes: [],
    extra: { [EXCHANGE]: { conn } satisfies Exchange },
  });
  const dispatch = new Dispatch();
  const legacy = buildServer(null, log, skills);
  // Connecting only wires the transport's callbacks (its start() does nothing), so it is done before any request.
  void legacy.connect(dispatch);

  // Building a server with its handlers for every request cost more than the rest of the request
  // (docs/decisions.md): a 2026-07-28 server differs from another only by the deployment's name and
  // description (its server information and instructions), so one is kept per identity.
  const modernServers = new BoundedCache<string, ModernDispatch>('mcp_modern_servers', MODERN_SERVERS);
  const modernDispatchFor = (conn: Connection): ModernDispatch => {
    const key = `${conn.deploymentName}\u0000${conn.deploymentDescription ?? ''}`;
    let found = modernServers.get(key);
    if (!found) {
      found = new ModernDispatch();
      void buildServer(conn, log, skills).connect(found);
      modernServers.set(key, found);
    }
    return found;
  };

  return {
    async answer(message, request, conn, edge) {
      const authInfo = authInfoOf(conn);
      if (conn.protocolVersion === MODERN_VERSION) {
        const answered = edge && isPlainModernRequest(edge, message) ? modernDispatchFor(conn).request(message, authInfo) : null;
        if (answered) return sentAnswer(await answered);
        const response = await modern.fetch(request(), { authInfo, parsedBody: message });
        const text = await response.text();
        return { status: response.status, text, isResult: isResultText(text) };
      }
      return sentAnswer(await dispatch.request(message, authInfo));
    },
  };
}
