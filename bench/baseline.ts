/**
 * The benchmark's floor: a bare node:http server with a pg pool that answers the benchmark's
 * requests with the same SQL statements the service sends (its own named statements, imported
 * from src/, and the search statement as Prisma sends it) and the same JSON, with nothing in
 * between: no framework, no GraphQL engine, no ORM, no MCP SDK, no logging, no rate limiting.
 *
 * It does pay for what any correct server of these answers must do: verify the bearer token
 * (ES256 with node:crypto, cached per token digest for 60 s as the service does), map the subject
 * to the user (cached 30 s, as the service does), verify the MCP session id, and run the
 * product's own pure logic (search-text parsing, bundle rules, the MCP renderer).
 *
 *   PORT=… DATABASE_URL=… DATA_DIR=… MCP_SESSION_SECRET=… node --import tsx bench/baseline.ts
 */
import { createHash, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Workflow } from '@prisma/client';
import pg from 'pg';
import { DEV_AUDIENCE, DEV_ISSUER, devIssuerDir } from '../src/auth/dev-issuer.js';
import {
  ManifestCache,
  renderable,
  resolveBundle,
  type BundledWorkflow,
  type BundleRow,
  type DeploymentHolder,
  type EndpointRow,
} from '../src/deployments/bundle.js';
import type { ReadRows } from '../src/db/statement.js';
import { ADAPTERS, type Adapter } from '../src/manifest/types.js';
import { checkSummary, storedCheck } from '../src/marketplace/content-check.js';
import { handleOf } from '../src/marketplace/identity.js';
import { CATALOGUE_ROWS, isLarge } from '../src/marketplace/catalogue-size.js';
import { parseSearchText, prefixAsWords, SEARCH_LIMITS } from '../src/marketplace/query.js';
import { SEARCH_TIERS, searchTierPage, wordsStartingWith } from '../src/marketplace/sql.js';
import { callTool, catalogFor } from '../src/mcp/render/index.js';
import { toolList } from '../src/mcp/tool-list.js';
import { BUNDLES_OF_DEPLOYMENTS, deploymentsOfOwner, ENDPOINT_TARGET, USAGE_SINCE } from '../src/deployments/sql.js';
import { createSessionCodec } from '../src/mcp/session.js';
import { adapterForClient } from '../src/mcp/protocol.js';
import { SERVER_ICONS } from '../src/mcp/icon.js';
import { identityHash } from '../src/users/identity-hash.js';
import { USER_BY_IDENTITY, USER_WITH_COUNTS } from '../src/users/sql.js';
import { WORKFLOW_BY_ID, workflowSummariesOfOwner } from '../src/workflows/sql.js';
import { deploymentWorkflowStats, workflowStats } from '../src/workflows/stats.js';
import { DASHBOARD_QUERY } from './scenarios.js';

const env = process.env;
const port = Number(env.PORT ?? 0);
const dataDir = env.DATA_DIR ?? '';
if (!env.DATABASE_URL || !dataDir) {
  console.error('baseline: DATABASE_URL and DATA_DIR must be set');
  process.exit(2);
}

// The service's pool size (src/db/index.ts), so neither side can open more database connections.
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 10, connectionTimeoutMillis: 3000, idleTimeoutMillis: 30_000 });
pool.on('error', () => {});
// The service's rule for the plans of a large catalogue (src/marketplace/catalogue-size.ts), read
// once: the benchmark's data keep their size while it runs.
const largeCatalogue = isLarge(
  (await pool.query<{ rows: number }>(CATALOGUE_ROWS)).rows[0]?.rows ?? -1,
  Number(env.MARKETPLACE_LARGE_FROM ?? 200_000),
);
const sessions = createSessionCodec({ mcpSessionSecret: env.MCP_SESSION_SECRET ?? null, dataDir });

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Authentication: the dev issuer's ES256 tokens, verified by hand.

const devKey: KeyObject = createPublicKey({
  key: JSON.parse(readFileSync(join(devIssuerDir(dataDir), 'public.jwk.json'), 'utf8')),
  format: 'jwk',
});
const CLOCK_TOLERANCE_S = 60;
const TOKEN_CACHE_MS = 60_000;
const VIEWER_CACHE_MS = 30_000;
const CACHE_ENTRIES = 10_000;

interface Identity {
  subject: string;
  email: string | null;
}
interface Viewer {
  userId: string;
  email: string | null;
}

const tokens = new Map<string, { identity: Identity; until: number }>();
const viewers = new Map<string, { viewer: Viewer; until: number }>();

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

const unauthorized = (message: string) => new HttpError(401, 'UNAUTHORIZED', message);

function verifyToken(token: string): { identity: Identity; exp: number } {
  const [header, payload, signature, extra] = token.split('.');
  if (!header || !payload || !signature || extra !== undefined) throw unauthorized('the token is not a well-formed JWT');
  let head: { alg?: unknown };
  let claims: { iss?: unknown; aud?: unknown; exp?: unknown; sub?: unknown; email?: unknown };
  try {
    head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw unauthorized('the token is not a well-formed JWT');
  }
  if (head.alg !== 'ES256') throw unauthorized('unsupported algorithm');
  const valid = verifySignature(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: devKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) throw unauthorized('the token signature is invalid');
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== DEV_ISSUER || !audience.includes(DEV_AUDIENCE)) throw unauthorized('wrong issuer or audience');
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_TOLERANCE_S < Date.now() / 1000) throw unauthorized('the token has expired');
  if (typeof claims.sub !== 'string' || !claims.sub) throw unauthorized('the token has no subject');
  return { identity: { subject: claims.sub, email: typeof claims.email === 'string' ? claims.email : null }, exp: claims.exp };
}

async function authenticate(req: IncomingMessage): Promise<Viewer> {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(req.headers.authorization?.trim() ?? '');
  if (!match) throw unauthorized('missing or malformed Authorization header');
  const token = match[1]!;
  const now = Date.now();
  // Keyed by digest, as the service's cache is, so both pay the same hash per request.
  const key = createHash('sha256').update(token).digest('base64url');
  let identity = tokens.get(key);
  if (!identity || identity.until <= now) {
    const verified = verifyToken(token);
    identity = { identity: verified.identity, until: Math.min(verified.exp * 1000, now + TOKEN_CACHE_MS) };
    remember(tokens, key, identity);
  }
  const subject = identity.identity.subject;
  const cached = viewers.get(subject);
  if (cached && cached.until > now) return cached.viewer;
  // The service's own statement (src/users/service.ts).
  const { rows } = await pool.query<{ id: string; email: string | null }>({
    name: USER_BY_IDENTITY.name,
    text: USER_BY_IDENTITY.text,
    values: [DEV_ISSUER, subject, identityHash(DEV_ISSUER, subject)],
  });
  // The benchmark only uses seeded users; first-sign-in creation is not part of the floor.
  if (!rows[0]?.id) throw unauthorized('unknown user');
  const viewer = { userId: rows[0].id, email: rows[0].email };
  remember(viewers, subject, { viewer, until: now + VIEWER_CACHE_MS });
  return viewer;
}

// ---------------------------------------------------------------------------------------------
// SQL: the statements the service sends for each read: its own named statements (imported from
// src/ and sent as named prepared statements too) and the search, which the service sends through
// Prisma's $queryRaw, as Prisma sends it.

/** The service's own statement for a page of an owner's workflows without manifests (src/workflows/sql.ts). */
const WORKFLOWS_OF_OWNER = workflowSummariesOfOwner(false, false);

/** The service's own statements for the deployment page (src/deployments/rows.ts). */
const DEPLOYMENTS_OF_OWNER = deploymentsOfOwner(false, false);
// ---------------------------------------------------------------------------------------------
// Answers.

interface WorkflowRow {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  visibility: string;
  category: string;
  tags: string[];
  allow_forks: boolean;
  current_version: string;
  manifest: unknown;
  forked_from_workflow_id: string | null;
  forked_from_user_id: string | null;
  forked_from_version: string | null;
  forks_count: number;
  subscribers_count: number;
  rating_sum: number;
  rating_count: number;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
  check_findings: unknown;
}

const stats = (w: Pick<WorkflowRow, 'forks_count' | 'subscribers_count' | 'rating_sum' | 'rating_count'>) =>
  workflowStats({ forksCount: w.forks_count, subscribersCount: w.subscribers_count, ratingSum: w.rating_sum, ratingCount: w.rating_count });

/** A stored check as the service answers it (src/marketplace/graphql.ts, ContentCheck). */
function checkAnswer(findings: unknown) {
  const check = storedCheck(findings);
  return { status: check?.status ?? 'unchecked', summary: checkSummary(check), findings: check?.findings ?? [] };
}

/**
 * A workflow row read with the service's statements (Prisma's field names) as the service answers
 * it, keys in its order, the manifest only when given. The data set has no team workflows, so
 * `teamId` is null (readers of a team's workflow are checked with one statement more).
 */
function workflowAnswer(w: Workflow, manifest?: unknown) {
  return {
    workflowId: w.id,
    name: w.name,
    description: w.description,
    visibility: w.visibility,
    category: w.category,
    tags: w.tags,
    currentVersion: w.currentVersion,
    digest: w.digest,
    allowForks: w.allowForks,
    teamId: null,
    stats: workflowStats(w),
    forkedFrom: w.forkedFromWorkflowId
      ? { workflowId: w.forkedFromWorkflowId, userId: w.forkedFromUserId ?? '', version: w.forkedFromVersion ?? '' }
      : null,
    ...(manifest === undefined ? {} : { manifest }),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    check: checkAnswer(w.checkFindings),
    moderation: { state: w.moderationState, reason: w.moderationReason, at: w.moderatedAt?.toISOString() ?? null },
  };
}

const cursor = (kind: string, values: (string | number)[]) => Buffer.from(JSON.stringify([kind, ...values]), 'utf8').toString('base64url');

function page<R>(rows: R[], limit: number, kind: string, cursorOf: (row: R) => (string | number)[]) {
  const hasMore = rows.length > limit;
  const kept = hasMore ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    kept,
    pagination: { nextCursor: hasMore && last !== undefined ? cursor(kind, cursorOf(last)) : null, hasMore, count: kept.length },
  };
}

function limitOf(url: URL): number {
  const raw = url.searchParams.get('limit');
  if (raw === null) return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new HttpError(400, 'VALIDATION_ERROR', 'limit must be an integer from 1 to 100');
  return n;
}

async function getWorkflow(viewer: Viewer, workflowId: string): Promise<string> {
  // The service's own statement (sent without Prisma, as a named prepared statement), access checked on the row.
  const { rows } = await pool.query<Workflow>({ name: WORKFLOW_BY_ID.name, text: WORKFLOW_BY_ID.text, values: [workflowId] });
  const w = rows[0];
  if (!w || w.teamId || (w.ownerId !== viewer.userId && w.visibility !== 'public'))
    throw new HttpError(404, 'NOT_FOUND', `workflow '${workflowId}' was not found`);
  return JSON.stringify({ success: true, data: workflowAnswer(w, w.manifest) });
}

async function listWorkflows(viewer: Viewer, url: URL): Promise<string> {
  const limit = limitOf(url);
  const { rows } = await pool.query<Workflow>({
    name: WORKFLOWS_OF_OWNER.name,
    text: WORKFLOWS_OF_OWNER.text,
    values: [viewer.userId, limit + 1],
  });
  const { kept, pagination } = page(rows, limit, 'workflows', (w) => [w.createdAt.toISOString(), w.id]);
  const data = kept.map((w) => workflowAnswer(w));
  return JSON.stringify({ success: true, data, pagination });
}

interface SearchRow extends Omit<WorkflowRow, 'published_at'> {
  owner_display_name: string | null;
  published_at: Date;
  tier: number;
  popularity: number;
}

async function search(url: URL): Promise<string> {
  let terms;
  try {
    terms = parseSearchText(url.searchParams.get('q') ?? '');
  } catch (error) {
    throw new HttpError(400, 'VALIDATION_ERROR', (error as Error).message);
  }
  const limit = limitOf(url);
  // The service's statements (src/marketplace/sql.ts): the words a last word of several starts, then
  // the relevance tiers in turn until the page is full.
  let expanded = null;
  if (largeCatalogue && terms.terms.length > 1) {
    const lookup = wordsStartingWith(terms.prefix, SEARCH_LIMITS.maxPrefixWords);
    expanded = prefixAsWords(
      terms,
      (await pool.query<{ word: string }>(lookup.text, lookup.values)).rows.map((r) => r.word),
    );
  }
  const rows: SearchRow[] = [];
  for (const tier of SEARCH_TIERS) {
    const statement = searchTierPage({
      tier,
      tsquery: terms.tsquery,
      expanded,
      hotBand: largeCatalogue,
      category: null,
      after: null,
      count: limit + 1 - rows.length,
    });
    rows.push(...(await pool.query<SearchRow>(statement.text, statement.values)).rows);
    if (rows.length > limit) break;
  }
  const { kept, pagination } = page(rows, limit, `search:${terms.digest}`, (r) => [r.tier, r.popularity, r.id]);
  const data = kept.map((w) => ({
    workflowId: w.id,
    name: w.name,
    description: w.description,
    visibility: w.visibility,
    category: w.category,
    tags: w.tags,
    currentVersion: w.current_version,
    owner: { userId: w.owner_id, handle: handleOf({ id: w.owner_id, displayName: w.owner_display_name }) },
    stats: stats(w),
    publishedAt: w.published_at.toISOString(),
    createdAt: w.created_at.toISOString(),
    updatedAt: w.updated_at.toISOString(),
    check: checkAnswer(w.check_findings),
  }));
  return JSON.stringify({ success: true, data, pagination });
}

/** The bundles of the owner's deployments: the service's own statement (src/deployments/bundle.ts). */
async function loadBundles(deploymentIds: string[]): Promise<Map<string, BundledWorkflow[]>> {
  type HeldRow = BundleRow & DeploymentHolder;
  const rowsOf = new Map<string, HeldRow[]>(deploymentIds.map((id) => [id, []]));
  const { rows } = await pool.query<HeldRow>({
    name: BUNDLES_OF_DEPLOYMENTS.name,
    text: BUNDLES_OF_DEPLOYMENTS.text,
    values: [deploymentIds],
  });
  for (const row of rows) rowsOf.get(row.deploymentId)?.push(row);
  return new Map([...rowsOf].map(([id, list]) => [id, list.length ? resolveBundle(list, list[0]!) : []]));
}

const knownAdapters = (adapters: string[]): Adapter[] => ADAPTERS.filter((a) => adapters.includes(a));

async function dashboard(viewer: Viewer, body: string): Promise<string> {
  let query: unknown;
  try {
    query = (JSON.parse(body) as { query?: unknown }).query;
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'the body is not JSON');
  }
  if (query !== DASHBOARD_QUERY) throw new HttpError(400, 'BAD_REQUEST', 'the baseline only answers the benchmark dashboard query');

  const { rows } = await pool.query<{
    id: string;
    email: string | null;
    workflowCount: number;
    deploymentCount: number;
    subscriptionCount: number;
  }>({
    name: USER_WITH_COUNTS.name,
    text: USER_WITH_COUNTS.text,
    values: [viewer.userId],
  });
  const me = rows[0];
  if (!me) throw unauthorized('the account of this token no longer exists');

  // GraphQL resolves `workflows` and `deployments` side by side; so does the floor.
  const [workflows, deployments] = await Promise.all([
    (async () => {
      const { rows: list } = await pool.query<Workflow>({
        name: WORKFLOWS_OF_OWNER.name,
        text: WORKFLOWS_OF_OWNER.text,
        values: [viewer.userId, 21],
      });
      const { kept, pagination } = page(list, 20, 'workflows', (w) => [w.createdAt.toISOString(), w.id]);
      return {
        data: kept.map((w) => ({
          workflowId: w.id,
          name: w.name,
          visibility: w.visibility,
          currentVersion: w.currentVersion,
          updatedAt: w.updatedAt.toISOString(),
          stats: workflowStats(w),
        })),
        pagination: { count: pagination.count, hasMore: pagination.hasMore, nextCursor: pagination.nextCursor },
      };
    })(),
    (async () => {
      const { rows: list } = await pool.query<{
        id: string;
        name: string;
        status: string;
        enabledAdapters: string[];
        lastConnectedAt: Date | null;
        createdAt: Date;
      }>({
        name: DEPLOYMENTS_OF_OWNER.name,
        text: DEPLOYMENTS_OF_OWNER.text,
        values: [viewer.userId, 21],
      });
      if (list.length === 0) return [];
      const { kept } = page(list, 20, 'deployments', (d) => [d.createdAt.getTime(), d.id]);
      const bundles = await loadBundles(kept.map((d) => d.id));
      const now = new Date();
      const monthStart = `${now.toISOString().slice(0, 7)}-01`;
      const { rows: sums } = await pool.query<{ deploymentId: string; total: string }>({
        name: USAGE_SINCE.name,
        text: USAGE_SINCE.text,
        values: [kept.map((d) => d.id), monthStart],
      });
      const sumById = new Map(sums.map((s) => [s.deploymentId, Number(s.total)]));
      return kept.map((d) => ({
        deploymentId: d.id,
        name: d.name,
        status: d.status,
        enabledAdapters: knownAdapters(d.enabledAdapters),
        workflows: bundles
          .get(d.id)!
          .map((w) => ({ workflowId: w.id, name: w.name, version: w.version, isOwned: w.isOwned, stats: deploymentWorkflowStats(w) })),
        usage: { connectionsThisMonth: sumById.get(d.id) ?? 0, lastConnectedAt: d.lastConnectedAt?.toISOString() ?? null },
      }));
    })(),
  ]);
  return JSON.stringify({
    data: {
      me: {
        userId: me.id,
        email: me.email,
        workflowCount: me.workflowCount,
        deploymentCount: me.deploymentCount,
        subscriptionCount: me.subscriptionCount,
        workflows,
        deployments,
      },
    },
  });
}

const MODERN_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';

/** The service's manifest cache and its reader, so the baseline reads manifests as the service does. */
const manifests = new ManifestCache();
const readRows: ReadRows = async (statement, values) => (await pool.query({ name: statement.name, text: statement.text, values })).rows;

async function mcp(req: IncomingMessage, viewer: Viewer, deploymentId: string, body: string): Promise<string> {
  // The service's statement for the endpoint: the deployment with its bundle (manifests come from the same cache as the service's).
  const { rows } = await pool.query<EndpointRow>({ name: ENDPOINT_TARGET.name, text: ENDPOINT_TARGET.text, values: [deploymentId] });
  const deployment = rows[0];
  if (!deployment || (!deployment.allowAnonymous && deployment.ownerId !== viewer.userId))
    throw new HttpError(404, 'NOT_FOUND', `deployment '${deploymentId}' was not found`);
  if (deployment.status !== 'active') throw new HttpError(403, 'FORBIDDEN', 'the deployment is inactive');
  const bundled = rows.filter((r): r is EndpointRow & { workflowId: string } => r.workflowId !== null);
  const bundle = resolveBundle(bundled, deployment);

  let message: {
    jsonrpc?: unknown;
    id?: unknown;
    method?: unknown;
    params?: { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> };
  };
  try {
    message = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'the body is not JSON');
  }
  if (message.jsonrpc !== '2.0' || (typeof message.id !== 'string' && typeof message.id !== 'number'))
    throw new HttpError(400, 'BAD_REQUEST', 'not a JSON-RPC request');
  // 2026-07-28: no session, the revision and the client in _meta (the adapter from the client's name, as the service does).
  const meta = message.params?._meta;
  const sessionless = meta?.[MODERN_VERSION_KEY] === '2026-07-28';
  let protocolVersion: string;
  let adapter: Adapter;
  if (sessionless) {
    if (req.headers['mcp-protocol-version'] !== '2026-07-28' || req.headers['mcp-method'] !== message.method)
      throw new HttpError(400, 'BAD_REQUEST', 'headers and body disagree');
    protocolVersion = '2026-07-28';
    adapter = adapterForClient(String((meta?.[CLIENT_INFO_KEY] as { name?: unknown } | undefined)?.name ?? ''));
  } else {
    const sessionId = req.headers['mcp-session-id'];
    const claims = typeof sessionId === 'string' ? await sessions.read(sessionId) : null;
    if (!claims || claims.deploymentId !== deploymentId) throw new HttpError(404, 'NOT_FOUND', 'session not found');
    const header = req.headers['mcp-protocol-version'];
    protocolVersion = typeof header === 'string' ? header : claims.protocolVersion;
    adapter = claims.adapter;
  }
  if (!knownAdapters(deployment.enabledAdapters).includes(adapter)) throw new HttpError(403, 'FORBIDDEN', 'the adapter is disabled');

  const modern = protocolVersion >= '2025-06-18';
  const workflows = await renderable(bundle, adapter, manifests, readRows);
  const catalog = await catalogFor(workflows, adapter);
  let result: unknown;
  if (message.method === 'tools/list') {
    // The service's tool list of the catalog, made once per catalog.
    result = { tools: toolList(catalog, modern) };
  } else if (message.method === 'tools/call') {
    const called = callTool(catalog, workflows, String(message.params?.name), message.params?.arguments ?? {});
    result = modern ? { content: called.content, structuredContent: called.structuredContent } : { content: called.content };
  } else {
    throw new HttpError(400, 'BAD_REQUEST', 'the baseline only answers tools/list and tools/call');
  }
  if (sessionless) {
    // What 2026-07-28 adds to every result: its type, the cache fields of list results, the server's identity.
    result = {
      ...(result as object),
      resultType: 'complete',
      ...(message.method === 'tools/list' ? { ttlMs: 0, cacheScope: 'private' } : {}),
      _meta: {
        'io.modelcontextprotocol/serverInfo': { name: 'workflow-service', title: deployment.name, version: '0.1.0', icons: SERVER_ICONS },
      },
    };
  }
  return JSON.stringify({ result, jsonrpc: '2.0', id: message.id });
}

// ---------------------------------------------------------------------------------------------
// HTTP.

const BODY_LIMIT = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', 'the body is too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const WORKFLOW_PATH = /^\/v1\/workflows\/([^/]+)\/?$/;
const MCP_PATH = /^\/v1\/mcp\/([^/]+)\/?$/;

async function route(req: IncomingMessage): Promise<string> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname;
  if (path === '/healthz') return JSON.stringify({ success: true, data: { status: 'ok' } });
  if (req.method === 'GET') {
    const workflow = WORKFLOW_PATH.exec(path);
    if (workflow) return getWorkflow(await authenticate(req), decodeURIComponent(workflow[1]!));
    if (path === '/v1/workflows') return listWorkflows(await authenticate(req), url);
    if (path === '/v1/marketplace/search') {
      await authenticate(req);
      return search(url);
    }
  }
  if (req.method === 'POST') {
    if (path === '/graphql') {
      const viewer = await authenticate(req);
      return dashboard(viewer, await readBody(req));
    }
    const endpoint = MCP_PATH.exec(path);
    if (endpoint) {
      const viewer = await authenticate(req);
      return mcp(req, viewer, decodeURIComponent(endpoint[1]!), await readBody(req));
    }
  }
  throw new HttpError(404, 'NOT_FOUND', `the baseline does not serve ${req.method} ${path}`);
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  route(req).then(
    (body) => send(res, 200, body),
    (error: unknown) => {
      if (error instanceof HttpError)
        return send(
          res,
          error.status,
          JSON.stringify({ success: false, error: { code: error.code, message: error.message, details: {} } }),
        );
      console.error(`baseline: ${(error as Error).stack ?? String(error)}`);
      send(res, 500, JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'unexpected error', details: {} } }));
    },
  );
});
// The service's keep-alive (src/main.ts), so connections live as long on both sides.
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`baseline listening on 127.0.0.1:${typeof address === 'object' && address ? address.port : port}`);
});

function stop(): void {
  server.close();
  server.closeIdleConnections();
  void pool.end().finally(() => process.exit(0));
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
