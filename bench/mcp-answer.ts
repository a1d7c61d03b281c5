/**
 * npm run bench:mcp -- [options]      (docs/performance.md, "The MCP answer alone")
 *
 * The CPU a request of the MCP server's answer alone (src/mcp/server.ts: the SDK's protocol layer,
 * its validation and encoding, the endpoint's handlers and renderer, the answer's JSON as the
 * endpoint writes it), without HTTP or the
 * database: `tools/call` or `tools/list` of the 2025 era and of 2026-07-28 in turn, in one
 * process, as the service serves both. Each measurement is a fresh process with the service's V8
 * flags on its command line (src/runtime/v8-flags.ts) and zod set as the service sets it (src/runtime/zod-mode.ts:
 * compiled validators, no reference-cycle support). With --zod-defaults as well, processes with
 * zod as it comes (interpreted, with cycle support) take turns with those. On a small,
 * noisy machine this separates changes of some microseconds a request on this path that the
 * whole-service benchmark (npm run bench) cannot tell from its noise. Results go to
 * bench/results/mcp-answer-<start>.json.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

// Nothing but Node's own modules is imported statically: a measuring process sets zod (or leaves it
// as it comes) before any module that builds a schema, and the harness is loaded by the parent alone.
const ROOT = resolve(import.meta.dirname, '..');

const USAGE = `npm run bench:mcp -- [options]

  --method M          tools/call or tools/list (default: both, one after the other)
  --processes N       fresh processes per kind (default 6)
  --rounds N          rounds per process, each era in turn (default 24; the first 5 warm up)
  --requests N        requests per era in a round (default 1000)
  --zod-defaults      also measure processes with zod as it comes (not the service's src/runtime/zod-mode.ts), taking turns
`;

const { values } = parseArgs({
  options: {
    method: { type: 'string' },
    processes: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '24' },
    requests: { type: 'string', default: '1000' },
    'zod-defaults': { type: 'boolean', default: false },
    child: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const count = (name: string, raw: string, min: number, max: number) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
};

const METHODS = ['tools/call', 'tools/list'] as const;
type Method = (typeof METHODS)[number];
const WARMUP_ROUNDS = 5;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};

/** One measurement, in this process: median CPU µs a request of each era over the rounds after the warm-up. */
async function measureHere(method: Method, zodMode: 'service' | 'defaults', rounds: number, requests: number) {
  // zod's settings before any module that builds a schema, as src/app.ts loads them (the V8 flags
  // are on this process's command line, as on the service's).
  if (zodMode === 'service') await import('../src/runtime/zod-mode.js');
  const { answerText, createMcpServer } = await import('../src/mcp/server.js');
  const { modernEdgeOf } = await import('../src/mcp/sdk-bridge.js');
  const { catalogFor } = await import('../src/mcp/render/index.js');
  const { generateDataset } = await import('../scripts/seed/generate.js');
  const { MODERN_VERSION } = await import('../src/mcp/protocol.js');

  const quiet = () => {};
  const server = createMcpServer({ debug: quiet, info: quiet, warn: quiet, error: quiet } as never);
  // Three workflows of the benchmark's seed, as a deployment bundles them.
  const data = generateDataset({ workflows: 3, users: 1, seed: 7, now: new Date('2026-11-01T00:00:00Z') });
  const workflows = data.workflows.slice(0, 3).map((w) => ({
    workflowId: w.id!,
    name: w.name,
    description: w.description ?? '',
    version: w.currentVersion!,
    manifest: w.manifest as never,
  }));
  const adapter = 'adapter_one' as const;
  const tool = (await catalogFor(workflows, adapter)).tools[0]!.name;
  const call = {
    name: tool,
    arguments: { task: 'Add a health check endpoint that reports the database status', context: { repo: 'acme/shop' } },
  };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const headers = new Map([
    ['mcp-protocol-version', MODERN_VERSION],
    ['mcp-method', method],
    ['mcp-name', tool],
  ]);
  const modernHeaders = { get: (name: string) => (method === 'tools/call' || name !== 'mcp-name' ? (headers.get(name) ?? null) : null) };
  const connection = (protocolVersion: string) => ({
    deploymentName: 'Bench deployment',
    deploymentDescription: null,
    adapter,
    protocolVersion: protocolVersion as never,
    workflows: async () => workflows,
  });
  const noFetchRequest = (): Request => {
    throw new Error('a plain request is answered by the long-lived servers');
  };
  // Each request is parsed from its text, as the endpoint does.
  const legacyText = JSON.stringify({ jsonrpc: '2.0', id: 3, method, params: method === 'tools/call' ? call : {} });
  const modernText = JSON.stringify({ jsonrpc: '2.0', id: 3, method, params: { ...(method === 'tools/call' ? call : {}), _meta: meta } });
  const eras = {
    legacy: async () => server.answer(JSON.parse(legacyText), noFetchRequest, connection('2025-06-18')),
    modern: async () => {
      const message = JSON.parse(modernText);
      return server.answer(message, noFetchRequest, connection(MODERN_VERSION), modernEdgeOf(modernHeaders, message));
    },
  };
  for (const [era, answer] of Object.entries(eras)) {
    const answered = await answer();
    if (!answered.isResult) throw new Error(`the ${era} ${method} was not answered with a result: ${answerText(answered).slice(0, 300)}`);
  }
  const us: Record<keyof typeof eras, number[]> = { legacy: [], modern: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const era of ['legacy', 'modern'] as const) {
      const answer = eras[era];
      const start = process.cpuUsage();
      // Each answer is serialized, as the endpoint writes it.
      for (let i = 0; i < requests; i += 1) answerText(await answer());
      const used = process.cpuUsage(start);
      if (round >= WARMUP_ROUNDS) us[era].push((used.user + used.system) / requests);
    }
  }
  return { legacy: median(us.legacy), modern: median(us.modern) };
}

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const rounds = count('rounds', values.rounds, WARMUP_ROUNDS + 1, 200);
const requests = count('requests', values.requests, 1, 100_000);

if (values.child) {
  const [method, kind] = values.child.split(':') as [Method, 'service' | 'defaults'];
  const result = await measureHere(method, kind, rounds, requests);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const { fmt, log, stamp, writeResults } = await import('./harness.js');
const { SERVICE_V8_FLAGS } = await import('../src/runtime/v8-flags.js');
const processes = count('processes', values.processes, 1, 50);
if (values.method !== undefined && !METHODS.includes(values.method as Method)) fail(`--method must be one of ${METHODS.join(', ')}`);
const methods: readonly Method[] = values.method ? [values.method as Method] : METHODS;
const kinds = values['zod-defaults'] ? (['service', 'defaults'] as const) : (['service'] as const);

const started = new Date();
const info = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  node: process.version,
  commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
};
const results = [];
for (const method of methods) {
  const runs: Record<string, { legacy: number[]; modern: number[] }> = {};
  for (const kind of kinds) runs[kind] = { legacy: [], modern: [] };
  for (let p = 0; p < processes; p += 1) {
    for (const kind of kinds) {
      const child = spawnSync(
        process.execPath,
        [
          ...SERVICE_V8_FLAGS,
          '--import',
          'tsx',
          'bench/mcp-answer.ts',
          '--child',
          `${method}:${kind}`,
          '--rounds',
          String(rounds),
          '--requests',
          String(requests),
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 600_000 },
      );
      if (child.status !== 0) throw new Error(`the measuring process failed (${child.status}): ${child.stderr}`);
      const measured = JSON.parse(child.stdout.trim().split('\n').pop()!) as { legacy: number; modern: number };
      runs[kind]!.legacy.push(measured.legacy);
      runs[kind]!.modern.push(measured.modern);
      log(`${method}, ${kind}, process ${p + 1}: 2025 era ${fmt(measured.legacy)} µs, 2026-07-28 ${fmt(measured.modern)} µs a request`);
    }
  }
  for (const kind of kinds) {
    const { legacy, modern } = runs[kind]!;
    results.push({ method, kind, legacyUs: legacy, modernUs: modern, legacyMedianUs: median(legacy), modernMedianUs: median(modern) });
  }
}

const out = ['', 'method      zod           2025 era µs (median of processes)   2026-07-28 µs'];
for (const r of results)
  out.push(
    `${r.method.padEnd(11)} ${r.kind.padEnd(13)} ${fmt(r.legacyMedianUs).padStart(10)}                          ${fmt(r.modernMedianUs).padStart(8)}`,
  );
const file = writeResults(`mcp-answer-${stamp(started)}.json`, {
  startedAt: started.toISOString(),
  finishedAt: new Date().toISOString(),
  machine: info,
  settings: { processes, rounds, warmupRounds: WARMUP_ROUNDS, requests },
  results,
});
process.stdout.write(`${out.join('\n')}\n\nresults: ${file}\n`);
