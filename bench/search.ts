/**
 * Marketplace search latency on PostgreSQL, over HTTP on loopback.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/search.ts
 *     [--workflows 10000] [--requests 500] [--concurrency 1,10] [--baseline] [--keep]
 *
 * Creates the throw-away database wf_bench_search next to DATABASE_URL's, migrates it, seeds it
 * (npm run seed's generator), starts the service in a child process on a free 127.0.0.1 port (so
 * the load generator does not share the service's event loop), warms it up, then sends
 * GET /v1/marketplace/search with varied queries — whole words, several words and partly typed
 * prefixes — at each concurrency and prints p50/p95/p99 in milliseconds (client-side, HTTP included).
 * --baseline also times GET /v1/users/me the same way, to tell the cost of search from the cost of
 * the stack. The database is dropped afterwards unless --keep is given.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seedDatabase } from '../scripts/seed/insert.js';
import { createApp } from '../src/app.js';
import { createNodeServer } from '../src/http/node.js';
import { signDevToken } from '../src/auth/dev-issuer.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, pgRunner } from '../src/db/index.js';
import { applyMigrations } from '../src/db/migrations.js';
import { createLogger } from '../src/logger.js';

const BENCH_DB = 'wf_bench_search';

const QUERIES = [
  'review',
  'pull request',
  'revi',
  'test',
  'flaky tests',
  'coverage',
  'docker',
  'dockerfile optimizer',
  'react',
  'react component',
  'django',
  'fastapi',
  'rust',
  'spring boot',
  'security audit',
  'secret',
  'dependency',
  'migration',
  'schema migration',
  'postgres',
  'query optimizer',
  'n+1',
  'memory leak',
  'profil',
  'release notes',
  'changelog',
  'hotfix',
  'incident',
  'postmortem',
  'logs',
  'refactor',
  'legacy',
  'dead code',
  'docs',
  'readme',
  'api',
  'api docs',
  'endpoint',
  'caching',
  'ci',
  'github actions',
  'kubernetes',
  'terraform',
  'accessibility',
  'css',
  'bundle',
  'typescript',
  'python',
  'go',
  'plan',
  'de',
  'sec',
  'onboard',
  'architecture',
  'research library',
  'feature flags',
  'background jobs',
  'rate limiter',
  'etl',
  'data quality',
];

const searchPath = (i: number) => `/v1/marketplace/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}`;

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

/** Sends `requests` GETs, `concurrency` at a time; `path(i)` is the path of the i-th. Sorted times in ms. */
async function run(origin: string, token: string, requests: number, concurrency: number, path = searchPath): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  let failures = 0;
  async function worker(): Promise<void> {
    while (next < requests) {
      const i = next++;
      const started = performance.now();
      const res = await fetch(`${origin}${path(i)}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (res.status !== 200) failures += 1;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failures) throw new Error(`${failures} of ${requests} requests did not answer 200`);
  return times.sort((a, b) => a - b);
}

/** The child process: the service on PostgreSQL, as `npm start` runs it, reporting its origin. */
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workflows: { type: 'string', default: '10000' },
      requests: { type: 'string', default: '500' },
      concurrency: { type: 'string', default: '1,10' },
      baseline: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl || !/^postgres(ql)?:/.test(adminUrl))
    throw new Error('DATABASE_URL must point at a PostgreSQL server (postgres://…); the benchmark creates its own database there');
  const benchUrl = new URL(adminUrl);
  benchUrl.pathname = `/${BENCH_DB}`;
  const workflows = Number(values.workflows);
  const requests = Number(values.requests);
  const levels = values.concurrency.split(',').map(Number);

  await withClient(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${BENCH_DB}`);
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-bench-'));
  let stopService = (): unknown => undefined;
  try {
    await withClient(benchUrl.toString(), (c) => applyMigrations(pgRunner(c)));
    const seeding = await openDatabase({ databaseUrl: benchUrl.toString(), dataDir });
    const seedStarted = performance.now();
    const counts = await seedDatabase(seeding.prisma, {
      workflows,
      users: Math.max(2, Math.round(workflows / 10)),
      seed: 1,
      now: new Date(),
    });
    await seeding.close();
    await withClient(benchUrl.toString(), (c) => c.query('VACUUM ANALYZE'));
    console.log(
      `seeded ${counts.publicWorkflows} public workflows (${counts.forks} forks, ${counts.subscriptions} subscriptions, ${counts.reviews} reviews) ` +
        `in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    );

    const child = fork(fileURLToPath(import.meta.url), ['--serve', benchUrl.toString(), dataDir], {
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    });
    stopService = () => child.connected && child.disconnect();
    const origin = await new Promise<string>((resolve, reject) => {
      child.once('message', (m: { origin: string }) => resolve(m.origin));
      child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening`)));
    });
    const token = await signDevToken(dataDir, { email: 'bench@example.com' });
    const sample = await (
      await fetch(`${origin}/v1/marketplace/search?q=review`, { headers: { authorization: `Bearer ${token}` } })
    ).json();
    console.log(`'review': ${sample.pagination.count} results on the first page, more: ${sample.pagination.hasMore}`);
    await run(origin, token, 100, 4); // warm-up: connections, query plans, caches

    const f = (n: number) => n.toFixed(1);
    const report = (label: string, times: number[], seconds: number) =>
      console.log(
        `${label}: p50 ${f(percentile(times, 50))} ms, p95 ${f(percentile(times, 95))} ms, p99 ${f(percentile(times, 99))} ms, ` +
          `max ${f(times[times.length - 1]!)} ms, ${(times.length / seconds).toFixed(0)} req/s`,
      );
    for (const concurrency of levels) {
      const started = performance.now();
      const times = await run(origin, token, requests, concurrency);
      report(
        `search, ${workflows} public workflows, ${requests} requests, concurrency ${concurrency}`,
        times,
        (performance.now() - started) / 1000,
      );
      if (values.baseline) {
        const at = performance.now();
        const base = await run(origin, token, requests, concurrency, () => '/v1/users/me');
        report(`baseline GET /v1/users/me, ${requests} requests, concurrency ${concurrency}`, base, (performance.now() - at) / 1000);
      }
    }
  } finally {
    stopService();
    rmSync(dataDir, { recursive: true, force: true });
    if (!values.keep) await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)`));
  }
}

const entry = process.argv[2] === '--serve' ? serve(process.argv[3]!, process.argv[4]!) : main();
entry.catch((error: unknown) => {
  console.error(`bench failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
