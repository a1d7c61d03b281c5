/**
 * What the benchmark sends. Each scenario is a fixed list of requests that autocannon cycles
 * through, spread over many seeded users' tokens (and workflows, search words, deployments), so
 * the per-user caches and rate-limit counters see a realistic mix rather than one hot key. The
 * service and the baseline get the very same list.
 */
import type pg from 'pg';
import { signDevToken } from '../src/auth/dev-issuer.js';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Scenario {
  name: (typeof SCENARIO_NAMES)[number];
  /** What the table shows. */
  title: string;
  requests: BenchRequest[];
  /** The part of a parsed answer that must be equal between the service and the baseline. */
  comparable(body: unknown): unknown;
  /**
   * Checks each answer's body during the load, for scenarios whose failures can come back with
   * HTTP 200 (GraphQL errors, JSON-RPC errors). The others rely on the status code alone.
   */
  verifyBody?: (body: string) => boolean;
}

/**
 * The dashboard's one read: the user, their workflows with stats, their deployments with the
 * bundled workflows (with stats) and usage. The baseline recognises exactly this text.
 */
export const DASHBOARD_QUERY = `query Dashboard {
  me {
    userId
    email
    workflowCount
    deploymentCount
    subscriptionCount
    workflows(limit: 20) {
      data { workflowId name visibility currentVersion updatedAt stats { forks subscribers rating ratingCount } }
      pagination { count hasMore nextCursor }
    }
    deployments(limit: 20) {
      deploymentId
      name
      status
      enabledAdapters
      workflows { workflowId name version isOwned stats { subscribersCount forksCount ratingCount averageRating } }
      usage { connectionsThisMonth lastConnectedAt }
    }
  }
}`;

export const SCENARIO_NAMES = [
  'workflow-get',
  'workflow-list',
  'marketplace-search',
  'dashboard',
  'mcp-tools-list',
  'mcp-tools-call',
  'mcp2026-tools-list',
  'mcp2026-tools-call',
] as const;

const MCP_PROTOCOL_VERSION = '2025-11-25';
/** The sessionless revision: no initialize and no session, the revision and the client in each request's _meta. */
const MCP_MODERN_VERSION = '2026-07-28';

/** Client names that select each adapter at initialize (src/mcp/protocol.ts adapterForClient). */
export const MCP_CLIENTS = ['claude-code', 'cursor-vscode', 'bench-agent'] as const;

/** Whole words, several words and partly typed prefixes, as people type them into a search box. */
const SEARCH_TERMS = [
  'review',
  'pull request',
  'revi',
  'test',
  'flaky',
  'coverage',
  'docker',
  'react component',
  'django',
  'fastapi',
  'rust',
  'spring',
  'security audit',
  'secret',
  'dependency',
  'migration',
  'postgres',
  'query',
  'memory leak',
  'profil',
  'release notes',
  'changelog',
  'incident',
  'logs',
  'refactor',
  'legacy',
  'docs',
  'readme',
  'api',
  'caching',
  'github actions',
  'kubernetes',
  'terraform',
  'accessibility',
  'typescript',
  'python',
  'go',
  'plan',
  'onboard',
  'architecture',
];

const TOOL_TASK = 'Add a health check endpoint that reports the database status';

interface BenchUser {
  id: string;
  subject: string;
  email: string;
  token: string;
}

export interface McpTarget {
  deploymentId: string;
  token: string;
  sessionId: string;
  /** The client name the session was opened with (it chose the adapter). */
  clientName: string;
  toolName: string;
}

export interface Workload {
  users: BenchUser[];
  /** A workflow each user may read: alternately one of their own and a popular public one. */
  readable: { user: BenchUser; workflowId: string }[];
  /** Users with at least one deployment (the dashboard has something to show). */
  deployers: BenchUser[];
  /** Active deployments with their owner's token, for the tool endpoint. */
  deployments: { deploymentId: string; owner: BenchUser }[];
}

/**
 * Reads who and what the scenarios use from the seeded database and signs a development token
 * for every seeded user (with the key under `dataDir`, the one the service and baseline trust).
 */
export async function loadWorkload(client: pg.Client, dataDir: string, options: { mcpDeployments: number }): Promise<Workload> {
  const { rows: userRows } = await client.query<{ id: string; subject: string; email: string }>(
    `SELECT u.id, i.subject, u.email FROM users u JOIN sign_in_identities i ON i.user_id = u.id ORDER BY i.subject`,
  );
  const users: BenchUser[] = [];
  for (const u of userRows) users.push({ ...u, token: await signDevToken(dataDir, { email: u.email, sub: u.subject }) });
  const byId = new Map(users.map((u) => [u.id, u]));

  const { rows: own } = await client.query<{ owner_id: string; id: string }>(
    `SELECT DISTINCT ON (owner_id) owner_id, id FROM workflows ORDER BY owner_id, created_at DESC, id DESC`,
  );
  const ownByUser = new Map(own.map((r) => [r.owner_id, r.id]));
  const { rows: popular } = await client.query<{ id: string }>(
    `SELECT id FROM workflows WHERE visibility = 'public' ORDER BY subscribers_count DESC, id LIMIT 200`,
  );
  const readable: Workload['readable'] = [];
  users.forEach((user, i) => {
    const mine = ownByUser.get(user.id);
    if (mine) readable.push({ user, workflowId: mine });
    readable.push({ user, workflowId: popular[i % popular.length]!.id });
  });

  const { rows: owners } = await client.query<{ owner_id: string }>(`SELECT DISTINCT owner_id FROM deployments ORDER BY owner_id`);
  const deployers = owners.map((r) => byId.get(r.owner_id)).filter((u): u is BenchUser => u !== undefined);

  const { rows: active } = await client.query<{ id: string; owner_id: string }>(
    `SELECT d.id, d.owner_id FROM deployments d
     WHERE d.status = 'active' AND EXISTS (SELECT 1 FROM deployment_workflows dw WHERE dw.deployment_id = d.id)
     ORDER BY d.created_at DESC, d.id DESC LIMIT $1`,
    [options.mcpDeployments],
  );
  const deployments = active.map((d) => ({ deploymentId: d.id, owner: byId.get(d.owner_id)! }));
  if (users.length === 0 || readable.length === 0 || deployers.length === 0 || deployments.length === 0) {
    throw new Error('the bench database has no users, workflows or deployments to load: seed it again (run without --keep)');
  }
  return { users, readable, deployers, deployments };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function mcpHeaders(token: string, sessionId?: string): Record<string, string> {
  return {
    ...bearer(token),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MCP_PROTOCOL_VERSION,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
}

/** A 2026-07-28 request: headers and body, the client named in _meta as the 2025 session was. */
function modernRequest(m: McpTarget, id: number, method: string, params: Record<string, unknown>, name?: string): BenchRequest {
  return {
    method: 'POST',
    path: `/v1/mcp/${m.deploymentId}`,
    headers: {
      ...bearer(m.token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_MODERN_VERSION,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MCP_MODERN_VERSION,
          'io.modelcontextprotocol/clientInfo': { name: m.clientName, version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  };
}

export function initializeBody(clientName: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
  });
}

export function toolsListBody(): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
}

const whole = (body: unknown) => body;
const rpcResult = (body: unknown) => (body as { result?: unknown }).result;

export function buildScenarios(workload: Workload, mcp: McpTarget[]): Scenario[] {
  const { users, readable, deployers } = workload;
  return [
    {
      name: 'workflow-get',
      title: 'GET /v1/workflows/:id',
      requests: readable.map(({ user, workflowId }) => ({
        method: 'GET',
        path: `/v1/workflows/${workflowId}`,
        headers: bearer(user.token),
      })),
      comparable: whole,
    },
    {
      name: 'workflow-list',
      title: 'GET /v1/workflows?limit=20',
      requests: users.map((user) => ({ method: 'GET', path: '/v1/workflows?limit=20', headers: bearer(user.token) })),
      comparable: whole,
    },
    {
      name: 'marketplace-search',
      title: 'GET /v1/marketplace/search?q=…',
      requests: users.map((user, i) => ({
        method: 'GET',
        path: `/v1/marketplace/search?q=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length]!)}`,
        headers: bearer(user.token),
      })),
      comparable: whole,
    },
    {
      name: 'dashboard',
      title: 'POST /graphql (dashboard)',
      requests: deployers.map((user) => ({
        method: 'POST',
        path: '/graphql',
        headers: { ...bearer(user.token), 'content-type': 'application/json' },
        body: JSON.stringify({ query: DASHBOARD_QUERY }),
      })),
      comparable: whole,
      verifyBody: (body) => body.startsWith('{"data":{"me":{') && !body.includes('"errors":['),
    },
    {
      name: 'mcp-tools-list',
      title: 'MCP tools/list',
      requests: mcp.map((m) => ({
        method: 'POST',
        path: `/v1/mcp/${m.deploymentId}`,
        headers: mcpHeaders(m.token, m.sessionId),
        body: toolsListBody(),
      })),
      comparable: rpcResult,
      verifyBody: (body) => body.startsWith('{"result":'),
    },
    {
      name: 'mcp-tools-call',
      title: 'MCP tools/call',
      requests: mcp.map((m) => ({
        method: 'POST',
        path: `/v1/mcp/${m.deploymentId}`,
        headers: mcpHeaders(m.token, m.sessionId),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: m.toolName, arguments: { task: TOOL_TASK, context: { repo: 'acme/shop' } } },
        }),
      })),
      comparable: rpcResult,
      verifyBody: (body) => body.startsWith('{"result":'),
    },
    {
      name: 'mcp2026-tools-list',
      title: 'MCP 2026-07-28 tools/list',
      requests: mcp.map((m) => modernRequest(m, 2, 'tools/list', {})),
      comparable: rpcResult,
      verifyBody: (body) => body.startsWith('{"result":'),
    },
    {
      name: 'mcp2026-tools-call',
      title: 'MCP 2026-07-28 tools/call',
      requests: mcp.map((m) =>
        modernRequest(m, 3, 'tools/call', { name: m.toolName, arguments: { task: TOOL_TASK, context: { repo: 'acme/shop' } } }, m.toolName),
      ),
      comparable: rpcResult,
      verifyBody: (body) => body.startsWith('{"result":'),
    },
  ];
}
