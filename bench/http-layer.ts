/**
 * npm run bench:http -- --before <checkout> [options]      (docs/performance.md, "The HTTP layer alone")
 *
 * The service's node:http layer (src/http/node.ts, reading bodies with src/http/body.ts) of two
 * builds, without the rest of the service: each build's dist/ serves bench/http-layer-server.mjs,
 * which reads a JSON body as the POST routes do and answers a JSON text of a chosen size, under the
 * same autocannon load on loopback. The two builds take turns, one process at a time, a fresh
 * process for every measurement; the figure is the server's CPU a request. On a small, noisy
 * machine this separates a change of some microseconds a request that the whole-service benchmark
 * (npm run bench) cannot tell from its noise. Results go to bench/results/http-layer-<start>.json.
 */
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, freePort, log, ROOT, stamp, startChild, stopChild, writeResults } from './harness.js';

/** The checkout's commit, marked when it has uncommitted changes. */
function commitOf(dir: string): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: dir, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  return `${head.stdout.trim()}${dirty.stdout.trim() ? ' (with uncommitted changes)' : ''}`;
}

const USAGE = `npm run bench:http -- --before <checkout> [options]

  --before DIR        the checkout to compare with (its dist/, built beforehand)
  --after DIR         the other one (default: this checkout; run npm run build first)
  --rounds N          measurements of each build per case, taking turns (default 8)
  --duration S        seconds measured per measurement (default 3), after --warmup S (default 1)
  --connections N     concurrent connections (default 20)
  --cases LIST        method:answer bytes, comma-separated (default POST:6000,GET:2500,GET:6000,GET:100000)
`;

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string', default: '8' },
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '20' },
    cases: { type: 'string', default: 'POST:6000,GET:2500,GET:6000,GET:100000' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const count = (name: string, raw: string, max: number) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) fail(`--${name} must be a whole number from 1 to ${max}`);
  return n;
};
const rounds = count('rounds', values.rounds, 50);
const duration = count('duration', values.duration, 60);
const warmup = count('warmup', values.warmup, 60);
const connections = count('connections', values.connections, 500);
if (!values.before) fail('--before is required');
const dirs = { before: resolve(values.before), after: resolve(values.after ?? ROOT) };
for (const dir of Object.values(dirs))
  if (!existsSync(resolve(dir, 'dist/src/http/node.js'))) fail(`${dir} has no dist/src/http/node.js: build it first`);
const cases = values.cases.split(',').map((c) => {
  const [method, bytes] = c.split(':');
  const size = Number(bytes);
  if ((method !== 'GET' && method !== 'POST') || !Number.isInteger(size) || size < 10 || size > 10_000_000)
    fail(`a case is GET or POST, a colon and the answer's size in bytes (10 to 10000000): '${c}'`);
  return { method, size };
});

/** What a JSON-RPC client POSTs to the tool endpoint: the benchmark's tools/call. */
const POST_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: {
    name: 'plan',
    arguments: { task: 'Add a health check endpoint that reports the database status', context: { repo: 'acme/shop' } },
  },
});

const SERVER = resolve(ROOT, 'bench/http-layer-server.mjs');

async function cpuOf(origin: string): Promise<{ served: number; cpuMicros: number }> {
  const res = await fetch(`${origin}/cpu`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as { served: number; cpuMicros: number };
}

/** CPU µs a request of one fresh server of `build` under the case's load. */
async function measure(build: 'before' | 'after', method: string, size: number): Promise<number> {
  const child = await startChild(build, [SERVER, resolve(dirs[build], 'dist'), String(size)], {}, await freePort(), dirs[build]);
  try {
    const load = (seconds: number) =>
      autocannon({
        url: `${child.origin}/load`,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [method === 'POST' ? { method, body: POST_BODY, headers: { 'content-type': 'application/json' } } : { method }],
      });
    await load(warmup);
    const start = await cpuOf(child.origin);
    const result = await load(duration);
    const end = await cpuOf(child.origin);
    if (result.errors || result.non2xx || result.timeouts)
      throw new Error(`${build}: ${result.errors} errors, ${result.non2xx} non-2xx answers, ${result.timeouts} timeouts`);
    return (end.cpuMicros - start.cpuMicros) / (end.served - start.served);
  } finally {
    await stopChild(child);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

const started = new Date();
const info = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  node: process.version,
  before: commitOf(dirs.before),
  after: commitOf(dirs.after),
};
const results = [];
for (const { method, size } of cases) {
  const us = { before: [] as number[], after: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    // Turns alternate which build goes first, so a drift of the machine favours neither.
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const build of order) us[build].push(await measure(build, method, size));
    log(`${method} ${size} B: round ${round + 1}: before ${fmt(us.before[round])} µs, after ${fmt(us.after[round])} µs a request`);
  }
  const logs = us.after.map((a, i) => Math.log(a / us.before[i]!));
  const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
  const se = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (logs.length - 1 || 1) / logs.length);
  const row = {
    method,
    answerBytes: size,
    beforeMicros: us.before,
    afterMicros: us.after,
    medianBefore: median(us.before),
    medianAfter: median(us.after),
    afterOverBefore: Math.exp(mean),
    standardError: se,
  };
  results.push(row);
  log(
    `${method} ${size} B: before ${fmt(row.medianBefore)} µs, after ${fmt(row.medianAfter)} µs a request (medians); after ÷ before ${fmt(row.afterOverBefore, 2)} ± ${fmt(se, 2)} (paired)`,
  );
}
const file = writeResults(`http-layer-${stamp(started)}.json`, {
  startedAt: started.toISOString(),
  machine: info,
  settings: { rounds, duration, warmup, connections },
  results,
});
process.stdout.write(`results: ${file}\n`);
