/**
 * npm run bench -- [options]        (docs/performance.md)
 *
 * Seeds a throw-away PostgreSQL database, starts the built service and the baseline
 * (bench/baseline.ts) as child processes on loopback, checks that both give the same answers,
 * then loads each scenario with autocannon against the service and then the baseline, and prints
 * requests/s, p50 and p99 of both, their ratio, and the service's resident memory. Results go to
 * bench/results/<time>.json and bench/results/latest.json. With --before-dir it also runs the build
 * of another checkout and measures it in the same rounds, so before and after share one sitting and
 * one baseline. With --profile it instead records CPU profiles of the service under chosen
 * scenarios and summarises them.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareBeforeDatabase } from './before-database.js';
import { formatSummary, readProfile, summarise, type ProfileSummary } from './cpuprofile.js';
import {
  buildService,
  compareAnswers,
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
  statementCounter,
  statementsPerRequest,
  stopChild,
  stopLoad,
  writeResults,
  type BenchData,
  type Child,
  type LoadResult,
} from './harness.js';
import { buildScenarios, SCENARIO_NAMES, type Scenario } from './scenarios.js';
import { DEFAULT_SIZE, type BenchSize } from './seed.js';

const USAGE = `usage: npm run bench -- [options]

  --duration S        seconds of load per scenario and server (default 10)
  --warmup S          seconds of unmeasured load before each measured run (default 3)
  --connections N     concurrent connections (default 50)
  --rounds N          measure each scenario N times, the servers taking turns to go first;
                      the ratio reported is the median of the rounds' (default 1)
  --only a,b          run only these scenarios: ${SCENARIO_NAMES.join(', ')}
  --keep              keep the bench database afterwards, and reuse it if it is already seeded
  --no-build          use the existing dist/ instead of running the build first
  --service-dir DIR   run the service built in another checkout (its dist/, built beforehand) against
                      this checkout's baseline and data set: two builds measured against one floor
  --before-dir DIR    also run the service built in another checkout (its dist/, built beforehand) and
                      measure it in every round beside the service and the baseline: before and after
                      in one sitting against one floor (not with --profile)
  --profile           record CPU profiles of the service instead (default scenarios: workflow-get, mcp-tools-call)
  --profile-baseline  with --profile, record the baseline's profiles as well, under the same load
  --node-arg=FLAG     start the service with this Node.js flag as well (repeatable), e.g. --node-arg=--trace-gc
  --users N --workflows N --deployments N    data set size (default ${DEFAULT_SIZE.users}, ${DEFAULT_SIZE.workflows}, ${DEFAULT_SIZE.deployments})
  --mcp-deployments N deployments the MCP scenarios rotate over (default 200)
  --db NAME           name of the throw-away database (default wf_bench)

Environment: BENCH_DATABASE_URL, an administrator connection to the PostgreSQL to use
(default postgres://postgres@127.0.0.1:5432/postgres); the benchmark creates and drops its own database there.`;

interface Options {
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  only: string[] | null;
  keep: boolean;
  build: boolean;
  /** Another checkout whose built service is measured instead of this one's. */
  serviceDir: string | null;
  /** Another checkout whose built service is measured as well, in the same rounds ("before"). */
  beforeDir: string | null;
  profile: boolean;
  profileBaseline: boolean;
  /** Extra Node.js flags of the service process (diagnosis: --trace-gc, --inspect). */
  nodeArgs: string[];
  size: BenchSize;
  mcpDeployments: number;
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
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        only: { type: 'string' },
        keep: { type: 'boolean', default: false },
        'no-build': { type: 'boolean', default: false },
        'service-dir': { type: 'string' },
        'before-dir': { type: 'string' },
        profile: { type: 'boolean', default: false },
        rounds: { type: 'string' },
        'profile-baseline': { type: 'boolean', default: false },
        'node-arg': { type: 'string', multiple: true },
        users: { type: 'string' },
        workflows: { type: 'string' },
        deployments: { type: 'string' },
        'mcp-deployments': { type: 'string' },
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
  const only = values.only
    ? values.only
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
  const unknown = (only ?? []).filter((n) => !(SCENARIO_NAMES as readonly string[]).includes(n));
  if (unknown.length) fail(`unknown scenario ${unknown.join(', ')}`);
  if (values['before-dir'] && values.profile)
    fail('--before-dir is for the comparison: it cannot be combined with --profile (profile each checkout with --service-dir)');
  return {
    duration: int('duration', values.duration, 10, 1, 600),
    rounds: int('rounds', values.rounds, 1, 1, 25),
    warmup: int('warmup', values.warmup, 3, 0, 120),
    connections: int('connections', values.connections, 50, 1, 1000),
    only,
    keep: values.keep,
    build: !values['no-build'],
    serviceDir: values['service-dir'] ? resolve(values['service-dir']) : null,
    beforeDir: values['before-dir'] ? resolve(values['before-dir']) : null,
    profile: values.profile,
    profileBaseline: values['profile-baseline'],
    nodeArgs: values['node-arg'] ?? [],
    size: {
      users: int('users', values.users, DEFAULT_SIZE.users, 10, 1_000_000),
      workflows: int('workflows', values.workflows, DEFAULT_SIZE.workflows, 10, 1_000_000),
      deployments: int('deployments', values.deployments, DEFAULT_SIZE.deployments, 1, 1_000_000),
      seed: DEFAULT_SIZE.seed,
    },
    mcpDeployments: int('mcp-deployments', values['mcp-deployments'], 200, 1, 10_000),
    dbName: values.db ?? 'wf_bench',
    adminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
}

/** Everything started is stopped here, by process id, whatever way the run ends. */
const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => log(`clean-up: ${(error as Error).message}`));
}

async function startService(
  env: Record<string, string>,
  options: { countStatements: boolean; nodeArgs?: string[]; dir?: string | null; name?: string },
): Promise<Child> {
  const counter = options.countStatements ? await statementCounter() : { args: [], env: {} };
  const child = await startChild(
    options.name ?? 'service',
    [...counter.args, ...startFlags(options.dir ?? ROOT), ...(options.nodeArgs ?? []), 'dist/src/main.js'],
    { ...env, ...counter.env },
    await freePort(),
    options.dir ?? ROOT,
  );
  cleanups.push(() => stopChild(child));
  return child;
}

async function startBaseline(env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const counter = nodeArgs.length ? { args: [], env: {} } : await statementCounter();
  const child = await startChild(
    'baseline',
    [...counter.args, ...nodeArgs, '--import', 'tsx', 'bench/baseline.ts'],
    { ...env, ...counter.env },
    await freePort(),
  );
  cleanups.push(() => stopChild(child));
  return child;
}

function selectScenarios(all: Scenario[], only: string[] | null, fallback?: string[]): Scenario[] {
  const wanted = only ?? fallback;
  return wanted ? all.filter((s) => wanted.includes(s.name)) : all;
}

async function prepare(options: Options): Promise<BenchData> {
  if (options.serviceDir && !existsSync(join(options.serviceDir, 'dist/src/main.js')))
    throw new Error(`--service-dir ${options.serviceDir}: no dist/src/main.js there (build that checkout first)`);
  if (options.beforeDir && !existsSync(join(options.beforeDir, 'dist/src/main.js')))
    throw new Error(`--before-dir ${options.beforeDir}: no dist/src/main.js there (build that checkout first)`);
  if (options.build && !options.serviceDir) buildService();
  return prepareBenchData(options, (undo) => cleanups.unshift(undo));
}

interface ScenarioResult {
  name: string;
  title: string;
  requestsInRotation: number;
  service: LoadResult;
  baseline: LoadResult;
  /** Service requests/s over baseline requests/s: the median round's (`service` and `baseline` are that round's). */
  ratio: number;
  /** Each round's ratio, in the order measured. */
  roundRatios: number[];
  /** CPU ms a request of each server in each round (steadier than req/s on a busy machine). */
  roundCpuMsPerRequest: { service: (number | null)[]; baseline: (number | null)[]; before?: (number | null)[] };
  sameAnswers: boolean;
  /** SQL statements per request with warm caches (viewer, plan, token). */
  statements: { service: number | null; baseline: number | null };
  problems: string[];
  /** Not failures: things the reader of the figures should know (the baseline's SQL drifting from the service's). */
  warnings: string[];
  /**
   * With --before-dir, the before build measured in the same rounds: its median round's load
   * (its ratio is to that round's baseline), every round's ratio, its SQL statements per request,
   * and where its answers differ from the baseline's (not a failure: the work may change answers).
   */
  before?: { service: LoadResult; ratio: number; roundRatios: number[]; statements: number | null; answerDifferences: string[] };
}

function table(results: ScenarioResult[]): string {
  const head = [
    'scenario',
    'service req/s',
    'p50 ms',
    'p99 ms',
    'baseline req/s',
    'p50 ms',
    'p99 ms',
    'ratio',
    'CPU ms/req',
    'SQL/req',
    'check',
  ];
  const rows = results.map((r) => [
    r.title,
    String(r.service.rps),
    fmt(r.service.p50),
    fmt(r.service.p99),
    String(r.baseline.rps),
    fmt(r.baseline.p50),
    fmt(r.baseline.p99),
    fmt(r.ratio, 2),
    `${fmt(r.service.cpuMsPerRequest, 3)}/${fmt(r.baseline.cpuMsPerRequest, 3)}`,
    r.statements.service === r.statements.baseline
      ? fmt(r.statements.service)
      : `${fmt(r.statements.service)}/${fmt(r.statements.baseline)}`,
    r.problems.length ? 'FAILED' : 'ok',
  ]);
  // With a before build: its median round's req/s, ratio and CPU ms/req (its own; the baseline's is in the column before).
  if (results.some((r) => r.before)) {
    const at = head.indexOf('CPU ms/req') + 1;
    head.splice(at, 0, 'before req/s', 'before ratio', 'before CPU ms/req');
    rows.forEach((row, i) => {
      const before = results[i]!.before;
      row.splice(at, 0, before ? String(before.service.rps) : '—', fmt(before?.ratio, 2), fmt(before?.service.cpuMsPerRequest, 3));
    });
  }
  if (results.some((r) => r.roundRatios.length > 1)) {
    head.push('rounds');
    rows.forEach((row, i) => {
      const r = results[i]!;
      row.push(r.roundRatios.map((x, round) => (r.before ? `${fmt(r.before.roundRatios[round], 2)}→${fmt(x, 2)}` : fmt(x, 2))).join(' '));
    });
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

interface Target {
  target: string;
  value: string;
  met: boolean | null;
}

function targets(results: ScenarioResult[], idleRssMb: number | null, idleAfterRssMb: number | null): Target[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  const out: Target[] = [];
  const get = byName.get('workflow-get');
  if (get) {
    out.push({
      target: 'GET /v1/workflows/:id ≥ 50% of the baseline requests/s',
      value: `${fmt(get.ratio * 100, 0)}%`,
      met: get.ratio >= 0.5,
    });
    out.push({ target: 'GET /v1/workflows/:id p99 < 15 ms', value: `${fmt(get.service.p99)} ms`, met: get.service.p99 < 15 });
  }
  const call = byName.get('mcp-tools-call');
  if (call) out.push({ target: 'MCP tools/call p99 < 15 ms', value: `${fmt(call.service.p99)} ms`, met: call.service.p99 < 15 });
  out.push({ target: 'idle resident memory < 200 MB', value: `${fmt(idleRssMb)} MB`, met: idleRssMb === null ? null : idleRssMb < 200 });
  out.push({
    target: 'resident memory 60 s after the load within 60 MB of idle',
    value: `${fmt(idleAfterRssMb)} MB (idle ${fmt(idleRssMb)} MB)`,
    met: idleRssMb === null || idleAfterRssMb === null ? null : idleAfterRssMb - idleRssMb <= 60,
  });
  out.push({ target: 'dashboard query ≤ 5 SQL statements', value: 'see test/graphql/dashboard-statements.test.ts', met: null });
  return out;
}

async function compareRun(options: Options): Promise<number> {
  const started = new Date();
  const info = await machine(options.adminUrl, options);
  if (options.serviceDir) log(`the service is the build of commit ${info.serviceCommit} in ${options.serviceDir}`);
  if (options.beforeDir) log(`before is the build of commit ${info.beforeCommit} in ${options.beforeDir}`);
  const { db, dataDir, sessionSecret, workload } = await prepare(options);
  const env = serviceEnv(db.url, dataDir, sessionSecret);
  // Made before any server connects to the seeded database, which a copy needs.
  const beforeDatabase = options.beforeDir
    ? await prepareBeforeDatabase(options.adminUrl, { name: options.dbName, url: db.url }, options.beforeDir, log)
    : null;
  if (beforeDatabase) cleanups.unshift(beforeDatabase.drop);

  const service = await startService(env, { countStatements: true, nodeArgs: options.nodeArgs, dir: options.serviceDir });
  // Idle: started, connected to the database, not a single request served yet.
  await new Promise((r) => setTimeout(r, 2000));
  const idleRssMb = rssMb(service.pid);
  const baseline = await startBaseline(env);
  // The before build: same environment, so it trusts the same tokens and MCP sessions.
  const before = beforeDatabase
    ? await startService({ ...env, DATABASE_URL: beforeDatabase.url }, { countStatements: true, dir: options.beforeDir, name: 'before' })
    : null;
  log(
    `service pid ${service.pid} at ${service.origin} (idle RSS ${fmt(idleRssMb)} MB), baseline pid ${baseline.pid} at ${baseline.origin}${before ? `, before pid ${before.pid} at ${before.origin}` : ''}`,
  );

  const mcp = await openMcpSessions(service.origin, workload);
  // The before build serves the same opening requests (its sessions are not used: the service's
  // are valid on both), so neither process comes to the first measurement with a history the
  // other lacks: a process's code is shaped by every kind of request it has served.
  if (before) await openMcpSessions(before.origin, workload);
  const scenarios = selectScenarios(buildScenarios(workload, mcp), options.only);
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const problems = (await compareAnswers(service.origin, baseline.origin, scenario, 5)).map((p) => `answers differ: ${p}`);
    const sameAnswers = problems.length === 0;
    for (const p of problems) log(`  ${scenario.name}: ${p}`);
    // The before build's answers may differ where the work changed an answer on purpose: they are
    // recorded and shown, and do not fail the service's run.
    const beforeDifferences = before ? await compareAnswers(before.origin, baseline.origin, scenario, 5) : [];
    for (const p of beforeDifferences) log(`  ${scenario.name}: before: answers differ (not a failure of the service): ${p}`);
    const statements = { service: await statementsPerRequest(service, scenario), baseline: await statementsPerRequest(baseline, scenario) };
    const beforeStatements = before ? await statementsPerRequest(before, scenario) : null;
    const warnings =
      statements.service !== statements.baseline
        ? [
            `the service sends ${statements.service} SQL statements per request, the baseline ${statements.baseline}: bench/baseline.ts no longer mirrors the service's SQL`,
          ]
        : [];
    for (const w of warnings) log(`  ${scenario.name}: ${w}`);
    const measure = async (target: Child, warm: boolean) => {
      if (warm && options.warmup > 0) await runLoad(target.origin, scenario, { connections: options.connections, seconds: options.warmup });
      const result = await runLoad(target.origin, scenario, {
        connections: options.connections,
        seconds: options.duration,
        pid: target.pid,
      });
      problems.push(...loadFailures(result).map((f) => `${target.name}: ${f}`));
      return result;
    };
    // Rounds rotate which server goes first (round r starts with the r-th of [before,] service,
    // baseline), so a machine getting busier or quieter during the scenario favours none of them,
    // and a before build sees the same drift as the service; the median round is the one reported.
    const servers = before ? [before, service, baseline] : [service, baseline];
    const ratioOf = (x: LoadResult, b: LoadResult) => (b.rps > 0 ? Math.round((x.rps / b.rps) * 1000) / 1000 : 0);
    const rounds: { s: LoadResult; b: LoadResult; ratio: number; before: { s: LoadResult; ratio: number } | null }[] = [];
    for (let round = 0; round < options.rounds; round += 1) {
      const first = round % servers.length;
      const measured = new Map<Child, LoadResult>();
      // Every server's first measured run of the scenario is in round 0, after the warm-up.
      for (const target of [...servers.slice(first), ...servers.slice(0, first)]) measured.set(target, await measure(target, round === 0));
      const s = measured.get(service)!;
      const b = measured.get(baseline)!;
      const ratio = ratioOf(s, b);
      const bf = before ? { s: measured.get(before)!, ratio: ratioOf(measured.get(before)!, b) } : null;
      rounds.push({ s, b, ratio, before: bf });
      if (options.rounds > 1)
        log(
          `${scenario.name}: round ${round + 1}: ratio ${fmt(ratio, 2)} (${s.rps}/${b.rps} req/s, CPU ms/req ${fmt(s.cpuMsPerRequest, 3)}/${fmt(b.cpuMsPerRequest, 3)})${bf ? `, before ${fmt(bf.ratio, 2)} (${bf.s.rps}/${b.rps} req/s, CPU ms/req ${fmt(bf.s.cpuMsPerRequest, 3)})` : ''}`,
        );
    }
    const median = <T>(list: T[], key: (x: T) => number): T =>
      [...list].sort((x, y) => key(x) - key(y))[Math.floor((list.length - 1) / 2)]!;
    const { s, b, ratio } = median(rounds, (r) => r.ratio);
    const beforeMedian = before ? median(rounds, (r) => r.before!.ratio) : null;
    results.push({
      name: scenario.name,
      title: scenario.title,
      requestsInRotation: scenario.requests.length,
      service: s,
      baseline: b,
      ratio,
      roundRatios: rounds.map((r) => r.ratio),
      roundCpuMsPerRequest: {
        service: rounds.map((r) => r.s.cpuMsPerRequest ?? null),
        baseline: rounds.map((r) => r.b.cpuMsPerRequest ?? null),
        ...(before ? { before: rounds.map((r) => r.before!.s.cpuMsPerRequest ?? null) } : {}),
      },
      sameAnswers,
      statements,
      problems,
      warnings,
      ...(beforeMedian
        ? {
            before: {
              service: beforeMedian.before!.s,
              ratio: beforeMedian.before!.ratio,
              roundRatios: rounds.map((r) => r.before!.ratio),
              statements: beforeStatements,
              answerDifferences: beforeDifferences,
            },
          }
        : {}),
    });
    log(
      `${scenario.name}: service ${s.rps} req/s p99 ${fmt(s.p99)} ms ${fmt(s.cpuMsPerRequest, 3)} CPU ms/req at ${s.cpuPercent ?? '—'}% CPU, baseline ${b.rps} req/s p99 ${fmt(b.p99)} ms ${fmt(b.cpuMsPerRequest, 3)} CPU ms/req at ${b.cpuPercent ?? '—'}% CPU${problems.length ? `  — ${problems.length} problem(s)` : ''}`,
    );
    if (beforeMedian) {
      const { s: bs, ratio: br } = beforeMedian.before!;
      const bb = beforeMedian.b;
      log(
        `${scenario.name}: before ${bs.rps} req/s p99 ${fmt(bs.p99)} ms ${fmt(bs.cpuMsPerRequest, 3)} CPU ms/req at ${bs.cpuPercent ?? '—'}% CPU, ratio ${fmt(br, 2)} to baseline ${bb.rps} req/s p99 ${fmt(bb.p99)} ms ${fmt(bb.cpuMsPerRequest, 3)} CPU ms/req at ${bb.cpuPercent ?? '—'}% CPU`,
      );
    }
  }
  // Resident memory after the load: every 10 s for 60 s (the memory goal reads the last one).
  const settleRssMb: number[] = [];
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 10_000));
    settleRssMb.push(rssMb(service.pid) ?? Number.NaN);
  }
  const idleAfterRssMb = settleRssMb.at(-1) ?? null;
  await cleanUp();

  const finished = new Date();
  const peakRssMb = Math.max(...results.map((r) => r.service.peakRssMb ?? 0));
  const document = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    totalSeconds: Math.round((finished.getTime() - started.getTime()) / 100) / 10,
    machine: { ...info, loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100) },
    settings: {
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      rounds: options.rounds,
      connections: options.connections,
      rateLimitMode: 'report',
      logLevel: 'warn',
      serviceNodeArgs: options.nodeArgs,
    },
    dataset: { ...db.counts, reused: db.reused },
    memory: {
      serviceIdleRssMb: idleRssMb,
      servicePeakRssMb: peakRssMb || null,
      serviceIdleAfterLoadRssMb: idleAfterRssMb,
      serviceRssEvery10sAfterLoadMb: settleRssMb,
      baselinePeakRssMb: Math.max(...results.map((r) => r.baseline.peakRssMb ?? 0)) || null,
    },
    scenarios: results,
    targets: targets(results, idleRssMb, idleAfterRssMb),
  };
  const file = writeResults(`${stamp(started)}.json`, document);
  writeResults('latest.json', document);

  const out = [
    '',
    table(results),
    '',
    ...(options.beforeDir ? [`before: the build of commit ${info.beforeCommit}; the service: ${info.serviceCommit ?? info.commit}`] : []),
    `service resident memory: ${fmt(idleRssMb)} MB idle, ${fmt(peakRssMb || null)} MB at most under load, ${fmt(idleAfterRssMb)} MB 60 s afterwards (${settleRssMb.map((v) => fmt(v)).join(', ')} MB every 10 s)`,
    `${options.connections} connections, ${options.duration} s per run after ${options.warmup} s of warm-up${options.rounds > 1 ? `, median of ${options.rounds} rounds` : ''}; load average ${info.loadAverageAtStart.join(' ')} at start, ${document.machine.loadAverageAtEnd.join(' ')} at the end`,
    '',
    ...document.targets.map((t) => `${t.met === null ? '  ·' : t.met ? '  ✓' : '  ✗'} ${t.target}: ${t.value}`),
    '',
    ...results.flatMap((r) => r.warnings.map((w) => `note ${r.name}: ${w}`)),
    ...results.flatMap((r) => r.problems.map((p) => `FAILED ${r.name}: ${p}`)),
    `results: ${file} (and bench/results/latest.json); total ${document.totalSeconds} s`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return results.some((r) => r.problems.length > 0) ? 1 : 0;
}

async function profileRun(options: Options): Promise<number> {
  const started = new Date();
  const { db, dataDir, sessionSecret, workload } = await prepare(options);
  const env = serviceEnv(db.url, dataDir, sessionSecret);
  const profileDir = mkdtempSync(join(tmpdir(), 'wf-bench-profiles-'));
  const summaries: { scenario: string; server: string; load: LoadResult; profile: string; summary: ProfileSummary }[] = [];
  const names = selectScenarios(buildScenarios(workload, []), options.only, ['workflow-get', 'mcp-tools-call']).map((s) => s.name);
  const servers = options.profileBaseline ? (['service', 'baseline'] as const) : (['service'] as const);
  for (const name of names) {
    for (const server of servers) {
      const dir = join(profileDir, name, server);
      const nodeArgs = [...options.nodeArgs, '--cpu-prof', '--cpu-prof-dir', dir];
      const child =
        server === 'service'
          ? await startService(env, { countStatements: false, nodeArgs, dir: options.serviceDir })
          : await startBaseline(env, nodeArgs);
      // Sessions are signed statelessly, so the baseline accepts those the service opened.
      const opener = server === 'service' ? child : await startService(env, { countStatements: false, dir: options.serviceDir });
      const mcp = name.startsWith('mcp') ? await openMcpSessions(opener.origin, workload) : [];
      if (opener !== child) await stopChild(opener);
      const scenario = buildScenarios(workload, mcp).find((s) => s.name === name)!;
      const load = await runLoad(child.origin, scenario, {
        connections: options.connections,
        seconds: options.warmup + options.duration,
        pid: child.pid,
      });
      // Requests cut off when autocannon stopped are still being answered; let them finish first.
      await new Promise((r) => setTimeout(r, 2000));
      await stopChild(child);
      const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
      if (files.length === 0) throw new Error(`the ${server} wrote no CPU profile into ${dir}`);
      const profile = join(dir, files[0]!);
      const summary = summarise(readProfile(profile));
      // The results file keeps the profile's name only: its temporary directory is gone by the next run.
      summaries.push({ scenario: name, server, load, profile: files[0]!, summary });
      process.stdout.write(
        `\n${formatSummary(`${scenario.title}, ${server} — ${load.rps} req/s, p99 ${fmt(load.p99)} ms under the profiler`, summary)}\n\nprofile: ${profile} (open it in Chrome DevTools › Performance)\n`,
      );
      const failures = loadFailures(load);
      if (failures.length) process.stdout.write(`FAILED ${name} (${server}): ${failures.join('; ')}\n`);
    }
  }
  await cleanUp();
  const file = writeResults(`profile-${stamp(started)}.json`, {
    startedAt: started.toISOString(),
    settings: { seconds: options.warmup + options.duration, connections: options.connections },
    profiles: summaries,
  });
  process.stdout.write(`\nsummaries: ${file}; profiles kept under ${profileDir}\n`);
  return summaries.some((s) => loadFailures(s.load).length > 0) ? 1 : 0;
}

/** Set once Ctrl-C (or SIGTERM) arrives; the run's own errors after that are consequences, not news. */
let stopping = false;

async function main(): Promise<void> {
  const options = parseOptions();
  const started = performance.now();
  const interrupt = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the load and the servers, cleaning up…`);
    stopLoad();
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', () => interrupt('SIGINT'));
  process.on('SIGTERM', () => interrupt('SIGTERM'));
  let code = 1;
  try {
    code = options.profile ? await profileRun(options) : await compareRun(options);
  } finally {
    await cleanUp();
    if (!stopping) log(`bench finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  process.exit(code);
}

main().catch((error: unknown) => {
  if (stopping) return;
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  void cleanUp().finally(() => process.exit(1));
});
