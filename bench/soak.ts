/**
 * npm run bench:soak -- [options]        (docs/performance.md, "Soak")
 *
 * A bounded soak test of the built service: the benchmark's database and data set (bench/seed.ts),
 * the service started as `npm run bench` starts it, then `--minutes` of mixed load on loopback, every
 * scenario of bench/scenarios.ts in turn in slices of `--slice` seconds, round-robin. Every 15 s,
 * at the end of the load and for 60 s of idle afterwards, it reads the service's resident memory
 * (from /proc) and its heap figures (from its /metrics). It prints the samples, each slice's
 * requests/s and status counts, the least-squares trend of resident memory and heap used over the
 * second half of the load, and the memory 60 s after the load against the memory before it; the
 * whole result goes to bench/results/soak-<start time>.json. Exits with 1 when a request failed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildService,
  fmt,
  freePort,
  loadFailures,
  log,
  machine,
  openMcpSessions,
  prepareBenchData,
  ROOT,
  rssMb,
  runLoad,
  serviceEnv,
  stamp,
  startChild,
  startFlags,
  stopChild,
  stopLoad,
  writeResults,
  type Child,
} from './harness.js';
import { buildScenarios } from './scenarios.js';
import { DEFAULT_SIZE } from './seed.js';

/** Seconds between memory samples, under load and after it. */
const SAMPLE_EVERY_S = 15;
/** Seconds of idle after the load, sampled every SAMPLE_EVERY_S; the last sample is the "after" figure. */
const SETTLE_S = 60;
/** The trend is judged only when the second half of the load spans at least this long (see docs/performance.md). */
const MIN_TREND_SPAN_S = 120;
/** Goals (docs/performance.md, "Soak"). */
const MAX_RSS_SLOPE_MB_PER_MIN = 2;
const MAX_RSS_ABOVE_IDLE_MB = 60;
const MAX_IDLE_RSS_MB = 200;

const USAGE = `usage: npm run bench:soak -- [options]

  --minutes N         minutes of mixed load, 1 to 60 (default 10); then ${SETTLE_S} s of idle
  --connections N     concurrent connections, 1 to 200 (default 20)
  --slice S           seconds each scenario runs before the next one takes over, 5 to 120 (default 15)
  --keep              keep the bench database afterwards, and reuse it if it is already seeded
  --no-build          use the existing dist/ instead of running the build first
  --db NAME           name of the throw-away database (default wf_bench, the one npm run bench uses)

Environment: BENCH_DATABASE_URL, an administrator connection to the PostgreSQL to use
(default postgres://postgres@127.0.0.1:5432/postgres); the soak creates and drops its own database there.`;

interface Options {
  minutes: number;
  connections: number;
  slice: number;
  keep: boolean;
  build: boolean;
  dbName: string;
  adminUrl: string;
}

function fail(problem: string): never {
  process.stderr.write(`${problem}\n\n${USAGE}\n`);
  process.exit(2);
}

function parseOptions(): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        minutes: { type: 'string' },
        connections: { type: 'string' },
        slice: { type: 'string' },
        keep: { type: 'boolean', default: false },
        'no-build': { type: 'boolean', default: false },
        db: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max} (got '${raw}')`);
    return n;
  };
  return {
    minutes: int('minutes', values.minutes, 10, 1, 60),
    connections: int('connections', values.connections, 20, 1, 200),
    slice: int('slice', values.slice, 15, 5, 120),
    keep: values.keep,
    build: !values['no-build'],
    dbName: values.db ?? 'wf_bench',
    adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

/** Everything started is stopped here, by process id, whatever way the run ends. */
const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => log(`clean-up: ${(error as Error).message}`));
}

/** Set once Ctrl-C (or SIGTERM) arrives: the load, the sampling and the idle wait stop. */
let stopping = false;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const mb = (bytes: number | undefined) => (bytes === undefined ? null : Math.round((bytes / 2 ** 20) * 10) / 10);

interface HeapFigures {
  residentMb: number | null;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  externalMb: number | null;
}

/** The memory gauges of the service's /metrics (src/metrics/registry.ts), in MB. */
async function scrapeMemory(origin: string, token: string): Promise<HeapFigures> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text.slice(0, 200)}`);
  const gauges = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+) (\S+)$/.exec(line);
    if (match) gauges.set(match[1]!, Number(match[2]));
  }
  return {
    residentMb: mb(gauges.get('process_resident_memory_bytes')),
    heapUsedMb: mb(gauges.get('nodejs_heap_used_bytes')),
    heapTotalMb: mb(gauges.get('nodejs_heap_total_bytes')),
    externalMb: mb(gauges.get('nodejs_external_memory_bytes')),
  };
}

interface Sample extends HeapFigures {
  phase: 'before' | 'load' | 'after';
  /** Seconds since the load started (negative before it). */
  atSeconds: number;
  /** The scenario under load when the sample was taken. */
  scenario: string | null;
  /** VmRSS from /proc, as `npm run bench` reads it. */
  rssMb: number | null;
}

interface Slice {
  scenario: string;
  startedAtSeconds: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  mismatches: number;
  peakRssMb: number | null;
  cpuPercent: number | null;
  problems: string[];
}

/** Least-squares slope of y over x; null with fewer than 3 points or no spread in x. */
function slope(points: { x: number; y: number | null }[]): number | null {
  const known = points.filter((p): p is { x: number; y: number } => p.y !== null && Number.isFinite(p.y));
  if (known.length < 3) return null;
  const mx = known.reduce((a, p) => a + p.x, 0) / known.length;
  const my = known.reduce((a, p) => a + p.y, 0) / known.length;
  const sxx = known.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  if (sxx === 0) return null;
  return known.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / sxx;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const codes = (statusCodes: Record<string, number>) =>
  Object.entries(statusCodes)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ') || '—';

async function soak(options: Options): Promise<number> {
  const started = new Date();
  const info = await machine(options.adminUrl);
  if (options.build) buildService();
  else if (!existsSync(resolve(ROOT, 'dist/src/main.js')))
    throw new Error('--no-build: there is no dist/src/main.js (run npm run build first)');
  const { db, dataDir, sessionSecret, workload } = await prepareBenchData({ ...options, size: DEFAULT_SIZE, mcpDeployments: 200 }, (undo) =>
    cleanups.unshift(undo),
  );
  // /metrics is open outside production; the soak scrapes it with a token all the same, as a
  // production scraper must (src/metrics/http.ts).
  const metricsToken = randomBytes(24).toString('hex');
  const service: Child = await startChild(
    'service',
    [...startFlags(), 'dist/src/main.js'],
    { ...serviceEnv(db.url, dataDir, sessionSecret), METRICS_TOKEN: metricsToken },
    await freePort(),
  );
  cleanups.push(() => stopChild(service));

  const problems: string[] = [];
  const samples: Sample[] = [];
  let loadStartedAt = performance.now();
  let current: string | null = null;
  const take = async (phase: Sample['phase']): Promise<Sample> => {
    const atSeconds = phase === 'before' ? 0 : Math.round((performance.now() - loadStartedAt) / 100) / 10;
    const rss = rssMb(service.pid);
    let figures: HeapFigures = { residentMb: null, heapUsedMb: null, heapTotalMb: null, externalMb: null };
    try {
      figures = await scrapeMemory(service.origin, metricsToken);
    } catch (error) {
      if (!stopping) problems.push(`at ${atSeconds} s: reading /metrics failed: ${(error as Error).message}`);
    }
    const sample: Sample = { phase, atSeconds, scenario: phase === 'load' ? current : null, rssMb: rss, ...figures };
    samples.push(sample);
    log(
      `${phase === 'before' ? 'idle before the load' : `${phase} ${sample.atSeconds} s`}${sample.scenario ? ` (${sample.scenario})` : ''}: RSS ${fmt(rss)} MB, heap used ${fmt(sample.heapUsedMb)} of ${fmt(sample.heapTotalMb)} MB, external ${fmt(sample.externalMb)} MB`,
    );
    return sample;
  };

  // Idle: started, connected to the database, not a request served yet (as npm run bench reads it).
  await sleep(2000);
  const idleTakenAt = performance.now();
  const idle = await take('before');
  const mcp = await openMcpSessions(service.origin, workload);
  const scenarios = buildScenarios(workload, mcp);
  log(
    `service pid ${service.pid} at ${service.origin}; ${options.minutes} min of load over ${options.connections} connections, ${options.slice} s per scenario in turn: ${scenarios.map((s) => s.name).join(', ')}`,
  );

  // The load: each scenario for a slice, round-robin, until the time is up.
  loadStartedAt = performance.now();
  idle.atSeconds = Math.round((idleTakenAt - loadStartedAt) / 100) / 10;
  const loadMs = options.minutes * 60_000;
  let loading = true;
  // Samples every SAMPLE_EVERY_S while the load runs; the one at the end is taken after the last slice.
  const sampler = (async () => {
    for (let k = 1; ; k += 1) {
      const at = k * SAMPLE_EVERY_S * 1000;
      if (at > loadMs - 1000) return;
      await sleep(loadStartedAt + at - performance.now());
      if (!loading || stopping) return;
      await take('load');
    }
  })();
  const slices: Slice[] = [];
  for (let i = 0; !stopping; i += 1) {
    const left = Math.floor((loadStartedAt + loadMs - performance.now()) / 1000);
    if (left < 1) break;
    const scenario = scenarios[i % scenarios.length]!;
    current = scenario.name;
    const startedAtSeconds = Math.round((performance.now() - loadStartedAt) / 100) / 10;
    const r = await runLoad(service.origin, scenario, {
      connections: options.connections,
      seconds: Math.min(options.slice, left),
      pid: service.pid,
    });
    if (stopping) break;
    const failures = loadFailures(r);
    slices.push({
      scenario: scenario.name,
      startedAtSeconds,
      seconds: r.seconds,
      requests: r.requests,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      statusCodes: r.statusCodes,
      errors: r.errors,
      timeouts: r.timeouts,
      mismatches: r.mismatches,
      peakRssMb: r.peakRssMb,
      cpuPercent: r.cpuPercent,
      problems: failures,
    });
    for (const f of failures) problems.push(`slice ${slices.length} (${scenario.name} at ${startedAtSeconds} s): ${f}`);
    log(
      `slice ${slices.length}: ${scenario.name} ${r.rps} req/s p99 ${fmt(r.p99)} ms, ${codes(r.statusCodes)}${failures.length ? ` — ${failures.join('; ')}` : ''}`,
    );
  }
  loading = false;
  await sampler;
  current = null;
  const loadSeconds = Math.round((performance.now() - loadStartedAt) / 100) / 10;
  await take('load');

  // Idle after the load: every SAMPLE_EVERY_S for SETTLE_S; the last one is the "after" figure.
  const loadEndedAt = performance.now();
  let after: Sample | null = null;
  for (let s = SAMPLE_EVERY_S; s <= SETTLE_S && !stopping; s += SAMPLE_EVERY_S) {
    await sleep(loadEndedAt + s * 1000 - performance.now());
    after = await take('after');
  }
  if (service.process.exitCode !== null || service.process.signalCode !== null)
    problems.push(`the service exited (${service.process.exitCode ?? service.process.signalCode}) during the soak`);
  await cleanUp();

  // The trend: over the second half of the load, after the warm-up, resident memory and heap used
  // at the same sampling points, in MB per minute.
  const halfway = loadSeconds / 2;
  const secondHalf = samples.filter((s) => s.phase === 'load' && s.atSeconds >= halfway);
  // Each scenario leaves the heap at its own size: the first half must have run every one of them
  // (a whole round), or the second half's slope is the mix's warm-up, not a trend.
  const warmedUp = scenarios.every((scenario) => slices.some((s) => s.scenario === scenario.name && s.startedAtSeconds < halfway));
  const perMinute = (key: 'rssMb' | 'heapUsedMb') => {
    const value = slope(secondHalf.map((s) => ({ x: s.atSeconds / 60, y: s[key] })));
    return value === null ? null : Math.round(value * 100) / 100;
  };
  const trend = {
    fromSeconds: secondHalf[0]?.atSeconds ?? null,
    toSeconds: secondHalf.at(-1)?.atSeconds ?? null,
    samples: secondHalf.length,
    rssSlopeMbPerMinute: perMinute('rssMb'),
    heapUsedSlopeMbPerMinute: perMinute('heapUsedMb'),
    judged: (options.minutes * 60) / 2 >= MIN_TREND_SPAN_S && warmedUp,
  };
  const idleRss = idle.rssMb;
  const afterRss = after?.rssMb ?? null;
  const peakRssMb = Math.max(0, ...slices.map((s) => s.peakRssMb ?? 0)) || null;
  const targets = [
    {
      target: `no growth trend under load: RSS slope over the second half < ${MAX_RSS_SLOPE_MB_PER_MIN} MB/min`,
      value: `${fmt(trend.rssSlopeMbPerMinute, 2)} MB/min over ${trend.samples} samples from ${fmt(trend.fromSeconds, 0)} to ${fmt(trend.toSeconds, 0)} s (heap used ${fmt(trend.heapUsedSlopeMbPerMinute, 2)} MB/min)${trend.judged ? '' : `; not judged: the second half must span ${MIN_TREND_SPAN_S} s and the first half run every scenario (--minutes 4 or more with 15 s slices)`}`,
      met: !trend.judged || trend.rssSlopeMbPerMinute === null ? null : trend.rssSlopeMbPerMinute < MAX_RSS_SLOPE_MB_PER_MIN,
    },
    {
      target: `resident memory ${SETTLE_S} s after the load within ${MAX_RSS_ABOVE_IDLE_MB} MB of idle`,
      value: `${fmt(afterRss)} MB (idle ${fmt(idleRss)} MB)`,
      met: idleRss === null || afterRss === null ? null : afterRss - idleRss <= MAX_RSS_ABOVE_IDLE_MB,
    },
    {
      target: `idle resident memory < ${MAX_IDLE_RSS_MB} MB`,
      value: `${fmt(idleRss)} MB`,
      met: idleRss === null ? null : idleRss < MAX_IDLE_RSS_MB,
    },
  ];

  const finished = new Date();
  const document = {
    kind: 'soak',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    totalSeconds: Math.round((finished.getTime() - started.getTime()) / 100) / 10,
    machine: { ...info, loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100) },
    settings: {
      minutes: options.minutes,
      connections: options.connections,
      sliceSeconds: options.slice,
      sampleEverySeconds: SAMPLE_EVERY_S,
      idleAfterSeconds: SETTLE_S,
      scenarios: scenarios.map((s) => s.name),
      rateLimitMode: 'report',
      logLevel: 'warn',
    },
    dataset: { ...db.counts, reused: db.reused },
    loadSeconds,
    memory: { idleRssMb: idleRss, peakRssMb, afterLoadRssMb: afterRss },
    trend,
    samples,
    slices,
    targets,
    problems,
  };
  const file = writeResults(`soak-${stamp(started)}.json`, document);

  const sampleTable = table(
    ['phase', 'scenario', 't s', 'RSS MB', '/metrics RSS MB', 'heap used MB', 'heap total MB', 'external MB'],
    samples.map((s) => [
      s.phase,
      s.scenario ?? (s.phase === 'load' ? '(end of the load)' : ''),
      fmt(s.atSeconds),
      fmt(s.rssMb),
      fmt(s.residentMb),
      fmt(s.heapUsedMb),
      fmt(s.heapTotalMb),
      fmt(s.externalMb),
    ]),
  );
  const sliceTable = table(
    ['#', 'scenario', 'from s', 'seconds', 'req/s', 'p50 ms', 'p99 ms', 'statuses', 'errors', 'peak RSS MB', 'CPU %', 'check'],
    slices.map((s, i) => [
      String(i + 1),
      s.scenario,
      fmt(s.startedAtSeconds),
      fmt(s.seconds),
      String(s.rps),
      fmt(s.p50),
      fmt(s.p99),
      codes(s.statusCodes),
      `${s.errors}/${s.timeouts}/${s.mismatches}`,
      fmt(s.peakRssMb),
      s.cpuPercent === null ? '—' : String(s.cpuPercent),
      s.problems.length ? 'FAILED' : 'ok',
    ]),
  );
  const requests = slices.reduce((a, s) => a + s.requests, 0);
  const out = [
    '',
    sliceTable,
    '(errors: connection errors/timeouts/2xx answers reporting an error)',
    '',
    sampleTable,
    '',
    `${requests} requests in ${fmt(loadSeconds)} s (${Math.round(requests / Math.max(loadSeconds, 1))} req/s) over ${options.connections} connections, ${slices.length} slices of up to ${options.slice} s; load average ${info.loadAverageAtStart.join(' ')} at start, ${document.machine.loadAverageAtEnd.join(' ')} at the end`,
    `service resident memory: ${fmt(idleRss)} MB idle, ${fmt(peakRssMb)} MB at most under load, ${fmt(afterRss)} MB ${SETTLE_S} s afterwards`,
    '',
    ...targets.map((t) => `${t.met === null ? '  ·' : t.met ? '  ✓' : '  ✗'} ${t.target}: ${t.value}`),
    '',
    ...problems.map((p) => `FAILED ${p}`),
    `results: ${file}; total ${document.totalSeconds} s`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return problems.length > 0 ? 1 : 0;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const interrupt = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the load and the service, cleaning up…`);
    stopLoad();
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => interrupt('SIGINT'));
  process.on('SIGTERM', () => interrupt('SIGTERM'));
  let code = 1;
  try {
    code = await soak(options);
  } finally {
    await cleanUp();
  }
  process.exit(code);
}

main().catch((error: unknown) => {
  if (stopping) return;
  process.stderr.write(`soak failed: ${(error as Error).stack ?? String(error)}\n`);
  void cleanUp().finally(() => process.exit(1));
});
