import {
  createMcpHandler,
  McpServer as SdkMcpServer,
  ProtocolError,
  ResourceTemplate,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpRequestContext,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { BoundedCache } from '../cache/bounded.js';
import { AppError, errorTable } from '../errors.js';
import type { Logger } from '../logger.js';
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
import { createSkillsExtension } from './skills.js';
import { ALL_VERSIONS, JSONRPC, MODERN_VERSION, negotiateVersion } from './protocol.js';
import {
  authInfoFor,
  CallContext,
  callContextOf,
  Dispatch,
  isPlainModernRequest,
  ModernDispatch,
  type Connection,
  type ModernEdge,
} from './sdk-bridge.js';
import { listAnswerText, promptPage, toolPage } from './tool-list.js';

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
 * adapter, revision) comes in as `Connection`, carried to the handlers as the request's
 * `CallContext` (src/mcp/sdk-bridge.ts). The endpoint has already checked framing, access and the adapter.
 */

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

/** The request's workflows and catalog, read once per request. */
function catalog(call: CallContext): Promise<{ workflows: RenderableWorkflow[]; catalog: Catalog }> {
  return (call.loaded ??= call.conn
    .workflows()
    .then(async (workflows) => ({ workflows, catalog: await catalogFor(workflows, call.conn.adapter) })));
}

/** Name, title (the deployment's) and icon as the connection's revision has them: titles arrived in 2025-06-18, icons in 2025-11-25. */
function serverInfoFor(conn: Connection) {
  if (conn.protocolVersion < '2025-06-18') return { name: SERVER_NAME, version: SERVER_VERSION };
  const icons = conn.protocolVersion >= '2025-11-25' ? { icons: SERVER_ICONS } : {};
  return { name: SERVER_NAME, title: conn.deploymentName, version: SERVER_VERSION, ...icons };
}

/** Turns what a handler threw into the JSON-RPC error the SDK sends. */
function rethrowAsRpcError(log: Logger): (error: unknown) => never {
  return (error) => {
    throw toRpcError(error, log);
  };
}

/** A handler run with its call context (and whether the revision has 2025-06-18's fields), its errors turned into JSON-RPC errors. */
function withCall<R, T>(log: Logger, fn: (req: R, call: CallContext, modern: boolean) => T | Promise<T>) {
  const fail = rethrowAsRpcError(log);
  return (req: R, ctx: ServerContext): Promise<T> =>
    Promise.resolve()
      .then(() => {
        const call = callContextOf(ctx);
        // Fields MCP added in 2025-06-18 (titles, output schemas, structured results) stay out of older sessions.
        return fn(req, call, call.conn.protocolVersion >= '2025-06-18');
      })
      .catch(fail);
}

/** Replaces the SDK's own initialize handler, which would keep one client's identity on the shared 2025-era server. */
function registerInitialize(server: SdkMcpServer['server'], log: Logger): void {
  server.setRequestHandler(
    'initialize',
    withCall(log, (req, call) => ({
      protocolVersion: negotiateVersion(req.params.protocolVersion),
      capabilities: server.getCapabilities(),
      serverInfo: serverInfoFor(call.conn),
      instructions: instructionsFor(call.conn),
    })),
  );
}

/** The tools and prompts: one of each per workflow, listed in pages. */
function registerToolsAndPrompts(server: SdkMcpServer['server'], log: Logger): void {
  server.setRequestHandler(
    'tools/list',
    withCall(log, async (req, call, modern) => {
      const { catalog: c } = await catalog(call);
      return toolPage(c, modern, req.params?.cursor);
    }),
  );
  server.setRequestHandler(
    'tools/call',
    withCall(log, async (req, call, modern) => {
      const { workflows, catalog: c } = await catalog(call);
      const result = callTool(c, workflows, req.params.name, req.params.arguments ?? {});
      return modern ? { content: result.content, structuredContent: result.structuredContent } : { content: result.content };
    }),
  );
  server.setRequestHandler(
    'prompts/list',
    withCall(log, async (req, call, modern) => {
      const { catalog: c } = await catalog(call);
      return promptPage(c, modern, req.params?.cursor);
    }),
  );
  server.setRequestHandler(
    'prompts/get',
    withCall(log, async (req, call) => {
      const { workflows, catalog: c } = await catalog(call);
      return { ...getPrompt(c, workflows, req.params.name, req.params.arguments ?? {}) };
    }),
  );
}

/** A workflow's manifest, read as the `workflow://` resource `uri`. */
async function readManifest(uri: URL, ctx: ServerContext) {
  const call = callContextOf(ctx);
  const { workflows } = await catalog(call);
  const workflow = workflows.find((w) => manifestUri(w.workflowId) === uri.href);
  if (!workflow) {
    // 2026-07-28 asks for -32602 with exactly { uri }; the 2025 revisions used -32002.
    const code = call.conn.protocolVersion === MODERN_VERSION ? JSONRPC.INVALID_PARAMS : JSONRPC.RESOURCE_NOT_FOUND;
    throw new ProtocolError(code, `Resource not found: ${uri.href}`, { uri: uri.href });
  }
  // The manifest as agents read it everywhere else: every string its author wrote made inert.
  const manifest = inertWorkflow(workflow).manifest;
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: `${JSON.stringify(manifest, null, 2)}\n` }] };
}

/** The `workflow://` resources of the request's workflows. */
async function listManifests(ctx: ServerContext) {
  const call = callContextOf(ctx);
  const modern = call.conn.protocolVersion >= '2025-06-18';
  const { workflows } = await catalog(call);
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
}

/**
 * The resources: manifests and skills both go through the SDK's resource registry (the skills
 * extension registers its own `skill://` template on it).
 */
function registerResources(mcp: SdkMcpServer, log: Logger, skills: SkillsExtension): void {
  const fail = rethrowAsRpcError(log);
  mcp.registerResource(
    'workflow-manifest',
    new ResourceTemplate('workflow://{workflowId}/manifest', { list: (ctx) => listManifests(ctx).catch(fail) }),
    { description: "A workflow's manifest, as this deployment uses it.", mimeType: 'application/json' },
    (uri, _variables, ctx) => readManifest(uri, ctx).catch(fail),
  );
  skills.attach(mcp);
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
  if (!conn) registerInitialize(server, log);
  registerToolsAndPrompts(server, log);
  registerResources(mcp, log, skills);
  return mcp;
}

/** The long-lived 2026-07-28 servers, one per server identity (a deployment's name and description), the least recently used dropped past this many. */
const MODERN_SERVERS = 256;

/**
 * An answer of the SDK, and whether it is a result (not an error): from a long-lived server, the
 * JSON-RPC message it sent through an in-process transport (HTTP 200), serialized once, when the
 * reply is written (`answerText`); from the SDK's handler, the HTTP status and text of its reply.
 */
export type McpAnswer = { status: 200; message: JSONRPCMessage; isResult: boolean } | { status: number; text: string; isResult: boolean };

/** The answer a long-lived server sent through one of the in-process transports. */
function sentAnswer(message: JSONRPCMessage): McpAnswer {
  return { status: 200, message, isResult: 'result' in message };
}

/** The JSON text of an answer, as the reply carries it. */
export function answerText(answer: McpAnswer): string {
  return 'message' in answer ? listAnswerText(answer.message) : answer.text;
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
  // The skills are cached on the request's call context, like its catalog.
  const skills = createSkillsExtension(
    (ctx) => {
      const call = callContextOf(ctx);
      return {
        adapter: call.conn.adapter,
        workflows: () => catalog(call).then((c) => c.workflows),
        get skills() {
          return call.skills;
        },
        set skills(value) {
          call.skills = value;
        },
      };
    },
    (warning) => log.warn({ warning }, 'skill not served'),
  );
  const factory = (ctx: McpRequestContext) => buildServer(callContextOf(ctx).conn, log, skills);
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    onerror: (error) => log.debug({ err: error }, 'MCP request refused by the SDK'),
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
      const authInfo = authInfoFor(new CallContext(conn));
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
