/**
 * The scale curve: latency of the marketplace, the library, a deployment's usage and the dashboard's
 * first query on a database seeded at a given size (npm run seed with --workflows, --deployments and
 * --usage-events), over HTTP on loopback.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/wf_scale_1m nice -n 19 npx tsx bench/scale.ts \
 *     --label 1m --requests 200 [--out bench/results/scale-1m.json] [--explain docs/explain]
 *
 * Starts the service in a child process on a free 127.0.0.1 port (as bench/search.ts does), moves
 * the seeded users to the development issuer so their tokens can be signed here, finds the inputs
 * (the most-used deployments and their owners, the largest libraries, the cursors of pages 50 and
 * 500 of each sort), warms up, then sends the queries round-robin, one request at a time, `requests`
 * times each, and records p50 and p95 (client-side, HTTP included) with the load average of the
 * machine before and after. With --explain, first runs each query once with auto_explain on for this
 * database (ANALYZE, BUFFERS) and writes every statement's plan, from the server log, to
 * <dir>/<query>.txt.
 */
import { fork } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { getPriority, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { DEV_ISSUER, signDevToken } from '../src/auth/dev-issuer.js';
import { loadConfig } from '../src/config.js';
import { createNodeServer } from '../src/http/node.js';
import { createLogger } from '../src/logger.js';
import { DeploymentsDocument } from '../web/src/gql/graphql.js';

const PAGE = 20;
const DEEP_PAGES = [50, 500];
const SORTS = ['popular', 'recent', 'rating'] as const;
/** Words of many workflows' text (10–45 %), and the seed vocabulary's rarest (about 1 %); the counts are printed at each size. */
const COMMON_TERMS = ['review', 'test', 'code', 'api', 'docs'];
const RARE_TERMS = ['mutation', 'refresher', 'snapshot', 'reducer', 'notebook'];
const SERVER_LOG = process.env.PG_SERVER_LOG ?? '/var/log/postgresql/postgresql-15-main.log';

interface Request {
  method: 'GET' | 'POST';
  path: string;
  token: string;
  body?: string;
}

interface Query {
  name: string;
  what: string;
  requests: Request[];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function send(origin: string, r: Request): Promise<{ status: number; body: any }> {
  const res = await fetch(`${origin}${r.path}`, {
    method: r.method,
    headers: { authorization: `Bearer ${r.token}`, ...(r.body ? { 'content-type': 'application/json' } : {}) },
    body: r.body,
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

async function sendOk(origin: string, r: Request): Promise<any> {
  const { status, body } = await send(origin, r);
  if (status !== 200 || body?.errors) throw new Error(`${r.method} ${r.path} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** The child process: the service as `npm start` runs it, reporting its origin. */
async function serve(databaseUrl: string, dataDir: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'development',
    RATE_LIMIT_MODE: 'report',
  });
  const app = await createApp(config, { logger: createLogger('silent') });
  const server = createNodeServer((request) => app.handle(request, { remoteAddress: '127.0.0.1' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  process.send!({ origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  process.on('disconnect', () => {
    server.close();
    void app.close().finally(() => process.exit(0));
  });
}

async function startService(databaseUrl: string, dataDir: string): Promise<{ origin: string; stop(): Promise<void> }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', databaseUrl, dataDir], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { origin: string }) => resolve(m.origin));
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening`)));
  });
  return {
    origin,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!child.connected) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/** The inputs of every query at this size, read from the database and by walking the sorts' pages. */
async function buildQueries(url: string, origin: string, dataDir: string, log: (line: string) => void): Promise<Query[]> {
  const picks = await withClient(url, async (c) => {
    // Tokens of the development issuer resolve to seeded users by issuer and subject.
    await c.query(`UPDATE sign_in_identities SET issuer = $1 WHERE issuer <> $1`, [DEV_ISSUER]);
    const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)).toISOString().slice(0, 10);
    const deployments = await c.query<{ id: string; email: string; subject: string; n: number }>(
      `SELECT d.id, u.email, i.subject, s.n FROM (
         SELECT deployment_id, sum(count)::int AS n FROM deployment_usage WHERE day >= $1::date GROUP BY deployment_id ORDER BY n DESC, deployment_id LIMIT 20
       ) s JOIN deployments d ON d.id = s.deployment_id JOIN users u ON u.id = d.owner_id
       JOIN sign_in_identities i ON i.user_id = u.id ORDER BY s.n DESC`,
      [month],
    );
    const libraries = await c.query<{ email: string; subject: string; n: number }>(
      `SELECT u.email, i.subject, s.n FROM (
         SELECT user_id, count(*)::int AS n FROM library_entries GROUP BY user_id ORDER BY n DESC, user_id LIMIT 20
       ) s JOIN users u ON u.id = s.user_id JOIN sign_in_identities i ON i.user_id = u.id ORDER BY s.n DESC`,
    );
    const categories = await c.query<{ category: string }>(
      `SELECT category FROM workflows WHERE visibility = 'public' GROUP BY category ORDER BY count(*) DESC LIMIT 3`,
    );
    const totals = await c.query<{ workflows: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM workflows WHERE visibility = 'public') AS workflows, (SELECT count(*)::int FROM mcp_connections) AS events`,
    );
    return {
      deployments: deployments.rows,
      libraries: libraries.rows,
      categories: categories.rows.map((r) => r.category),
      ...totals.rows[0]!,
    };
  });
  if (picks.deployments.length === 0)
    throw new Error('the database has no usage this month: seed it with --deployments and --usage-events');
  log(
    `${picks.workflows} public workflows, ${picks.events} usage events; busiest deployment ${picks.deployments[0]!.n} connections this month, ` +
      `largest library ${picks.libraries[0]!.n} entries`,
  );
  const token = (u: { email: string; subject: string }) => signDevToken(dataDir, { email: u.email, sub: u.subject });
  const browser = await signDevToken(dataDir, { email: 'scale-bench@example.com' });
  const get = (path: string, t = browser): Request => ({ method: 'GET', path, token: t });

  const matches = async (term: string) =>
    (
      await withClient(url, (c) =>
        c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM workflows WHERE visibility = 'public' AND search_document @@ to_tsquery('simple', $1)`,
          [`'${term}':*`],
        ),
      )
    ).rows[0]!.n;
  for (const term of [...COMMON_TERMS, ...RARE_TERMS]) log(`  '${term}' matches ${await matches(term)} public workflows`);

  const queries: Query[] = [
    {
      name: 'search-common',
      what: 'search, a common word',
      requests: COMMON_TERMS.map((q) => get(`/v1/marketplace/search?q=${q}&limit=${PAGE}`)),
    },
    {
      name: 'search-rare',
      what: 'search, a rare word',
      requests: RARE_TERMS.map((q) => get(`/v1/marketplace/search?q=${q}&limit=${PAGE}`)),
    },
    {
      name: 'search-common-category',
      what: 'search, a common word in a category',
      requests: COMMON_TERMS.map((q, i) =>
        get(`/v1/marketplace/search?q=${q}&category=${picks.categories[i % picks.categories.length]}&limit=${PAGE}`),
      ),
    },
    {
      name: 'search-two-words',
      what: 'search, two words: a common one, then a rare one (the prefix)',
      requests: COMMON_TERMS.map((q, i) => get(`/v1/marketplace/search?q=${q}+${RARE_TERMS[i]}&limit=${PAGE}`)),
    },
    {
      name: 'search-two-words-common-last',
      what: 'search, two words: a rare one, then a common one (the prefix)',
      requests: COMMON_TERMS.map((q, i) => get(`/v1/marketplace/search?q=${RARE_TERMS[i]}+${q}&limit=${PAGE}`)),
    },
  ];
  for (const sort of SORTS) {
    queries.push({
      name: `browse-${sort}-p1`,
      what: `browse by ${sort}, page 1`,
      requests: [get(`/v1/marketplace?sort=${sort}&limit=${PAGE}`)],
    });
    // The cursors of the deep pages, by walking the pages as a client does.
    let cursor: string | null = null;
    const cursors = new Map<number, string>();
    for (let page = 2; page <= Math.max(...DEEP_PAGES); page += 1) {
      const path: string = `/v1/marketplace?sort=${sort}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const body = await sendOk(origin, get(path));
      cursor = body.pagination?.nextCursor ?? null;
      if (!cursor) break;
      if (DEEP_PAGES.includes(page)) cursors.set(page, cursor);
    }
    for (const page of DEEP_PAGES) {
      const c = cursors.get(page);
      if (!c) throw new Error(`sort ${sort} has fewer than ${page} pages of ${PAGE}`);
      queries.push({
        name: `browse-${sort}-p${page}`,
        what: `browse by ${sort}, page ${page}`,
        requests: [get(`/v1/marketplace?sort=${sort}&limit=${PAGE}&cursor=${encodeURIComponent(c)}`)],
      });
    }
  }
  queries.push({
    name: 'browse-popular-category',
    what: 'browse by popular in a category, page 1',
    requests: picks.categories.map((c) => get(`/v1/marketplace?sort=popular&category=${c}&limit=${PAGE}`)),
  });
  const libraryTokens = await Promise.all(picks.libraries.map(token));
  queries.push({
    name: 'library',
    what: "a user's library (the 20 largest), page 1",
    requests: libraryTokens.map((t) => get(`/v1/library?limit=${PAGE}`, t)),
  });
  const ownerTokens = await Promise.all(picks.deployments.map(token));
  queries.push({
    name: 'usage-month',
    what: "a deployment's month of usage (the 20 busiest)",
    requests: picks.deployments.map((d, i) => get(`/v1/deployments/${d.id}/usage?period=month`, ownerTokens[i])),
  });
  const dashboard = JSON.stringify({ query: DeploymentsDocument.toString() });
  queries.push({
    name: 'dashboard-first',
    what: "the dashboard's first query (deployments with usage, library), owners of the 20 busiest deployments",
    requests: ownerTokens.map((t) => ({ method: 'POST', path: '/graphql', token: t, body: dashboard })),
  });
  return queries;
}

/** Bytes appended to the server log since `from`. */
function logSince(from: number): string {
  const size = statSync(SERVER_LOG).size;
  const fd = openSync(SERVER_LOG, 'r');
  try {
    const buffer = Buffer.alloc(size - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The server log's entries (a line with the prefix and its continuation lines) of this database. */
function entriesOf(text: string, database: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) entries.push(line);
    else if (entries.length) entries[entries.length - 1] += `\n${line}`;
  }
  return entries.filter((e) => e.split('\n')[0]!.includes(`@${database} `));
}

async function explainAll(url: string, database: string, queries: Query[], origin: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const q of queries) await sendOk(origin, q.requests[0]!); // plans cached, caches warm
  for (const q of queries) {
    await withClient(url, (c) => c.query(`DO $$ BEGIN RAISE LOG 'scale-explain %', '${q.name}'; END $$`));
    const from = statSync(SERVER_LOG).size;
    await sendOk(origin, q.requests[0]!);
    await new Promise((r) => setTimeout(r, 300));
    const plans = entriesOf(logSince(from), database)
      .filter((e) => e.includes('plan:'))
      .map((e) => e.replace(/^\S+ \S+ \S+ \[\d+\] \S+ LOG: {2}/, ''));
    const r = q.requests[0]!;
    writeFileSync(
      join(dir, `${q.name}.txt`),
      `${q.what}\n${r.method} ${r.path}${r.body ? `\n${r.body}` : ''}\n\n` +
        `EXPLAIN (ANALYZE, BUFFERS) of every statement the request sent (auto_explain), ${new Date().toISOString()}\n\n${plans.join('\n\n')}\n`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      label: { type: 'string' },
      requests: { type: 'string', default: '200' },
      out: { type: 'string' },
      explain: { type: 'string' },
    },
  });
  const url = process.env.DATABASE_URL;
  if (!url || !/^postgres(ql)?:/.test(url)) throw new Error('DATABASE_URL must name a seeded PostgreSQL database (npm run seed)');
  const database = new URL(url).pathname.slice(1);
  const label = values.label ?? database;
  const requests = Number(values.requests);
  const log = (line: string) => console.log(line);
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-scale-'));
  try {
    await withClient(url, (c) => c.query('ANALYZE'));
    let service = await startService(url, dataDir);
    const queries = await buildQueries(url, service.origin, dataDir, log);
    if (values.explain) {
      await service.stop();
      const settings = [
        `session_preload_libraries = 'auto_explain'`,
        `auto_explain.log_min_duration = 0`,
        `auto_explain.log_analyze = on`,
        `auto_explain.log_buffers = on`,
        `auto_explain.log_timing = on`,
        `auto_explain.log_nested_statements = on`,
      ];
      const admin = new URL(url);
      admin.pathname = '/postgres';
      for (const s of settings) await withClient(admin.toString(), (c) => c.query(`ALTER DATABASE ${database} SET ${s}`));
      try {
        const explaining = await startService(url, dataDir);
        await explainAll(url, database, queries, explaining.origin, values.explain);
        await explaining.stop();
      } finally {
        await withClient(admin.toString(), (c) => c.query(`ALTER DATABASE ${database} RESET ALL`));
      }
      log(`plans written to ${values.explain}/`);
      service = await startService(url, dataDir);
    }
    try {
      for (let i = 0; i < 3; i += 1) for (const q of queries) for (const r of q.requests) await sendOk(service.origin, r);
      const loadBefore = loadavg();
      const times = new Map(queries.map((q) => [q.name, [] as number[]]));
      const started = new Date().toISOString();
      for (let i = 0; i < requests; i += 1) {
        for (const q of queries) {
          const r = q.requests[i % q.requests.length]!;
          const at = performance.now();
          const { status } = await send(service.origin, r);
          times.get(q.name)!.push(performance.now() - at);
          if (status !== 200) throw new Error(`${r.path} answered ${status}`);
        }
      }
      const loadAfter = loadavg();
      const rows = queries.map((q) => {
        const sorted = times.get(q.name)!.sort((a, b) => a - b);
        return {
          query: q.name,
          what: q.what,
          p50: +percentile(sorted, 50).toFixed(2),
          p95: +percentile(sorted, 95).toFixed(2),
          requests: sorted.length,
        };
      });
      const f = (n: number) => n.toFixed(1).padStart(7);
      for (const r of rows) log(`${label.padEnd(5)} ${r.query.padEnd(26)} p50 ${f(r.p50)} ms  p95 ${f(r.p95)} ms`);
      const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
      log(`load average before ${load(loadBefore)}, after ${load(loadAfter)}`);
      if (values.out) {
        writeFileSync(
          values.out,
          `${JSON.stringify(
            {
              label,
              database,
              started,
              command: `DATABASE_URL=${url} ${getPriority() === 0 ? '' : `nice -n ${getPriority()} `}npx tsx bench/scale.ts ${process.argv.slice(2).join(' ')}`,
              requestsPerQuery: requests,
              loadAverage: { before: loadBefore, after: loadAfter },
              results: rows,
            },
            null,
            2,
          )}\n`,
        );
        log(`results written to ${values.out}`);
      }
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const entry = process.argv[2] === '--serve' ? serve(process.argv[3]!, process.argv[4]!) : main();
entry.catch((error: unknown) => {
  console.error(`scale bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
