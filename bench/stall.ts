/**
 * npm run bench:stall -- [--rounds N]        (docs/performance.md, "One request's stall")
 *
 * How long the worst inputs the service accepts (or must read before refusing) hold its event
 * loop. The service runs as a child process on the embedded database, on loopback, with a free
 * account's limits; a prober sends `GET /healthz` back to back, one at a time, while each heavy
 * request runs. A `/healthz` answered late waited for the loop, so the longest `/healthz` during a
 * request, less the median `/healthz` when idle, is that request's stall (an upper bound: a pause
 * of other processes on the machine counts too). Each scenario runs `--rounds`
 * times; the median and the worst are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateDevIssuerKey, signDevToken } from '../src/auth/dev-issuer.js';
import { MANIFEST_LIMITS } from '../src/manifest/limits.js';
import { YAML_LIMITS } from '../src/manifest/yaml-text.js';
import { WORKFLOWS_MAX } from '../src/deployments/types.js';
import type { Adapter } from '../src/manifest/types.js';
import { catalogFor, type RenderableWorkflow } from '../src/mcp/render/index.js';
import { toolPage } from '../src/mcp/tool-list.js';
import { SERVICE_V8_FLAGS } from '../src/runtime/v8-flags.js';
import { fmt, freePort, log, startChild, stopChild } from './harness.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Math.min(50, Math.max(1, Number(values.rounds) || 5));

/** A manifest of `steps` chained steps whose every step is a tool (adapter_three, function_calling). */
function chainedManifest(name: string, steps: number, notes: string): Record<string, unknown> {
  return {
    manifest_version: '1.0',
    name,
    intent: 'Carry out a long chain of steps.',
    context: { repo: 'github.com/example/api', notes },
    steps: Array.from({ length: steps }, (_, i) => ({
      id: `s${i}`,
      name: `Step ${i}`,
      action: 'code_agent',
      ...(i > 0 ? { depends_on: [`s${i - 1}`] } : {}),
    })),
    adapters: { adapter_three: { mode: 'function_calling' } },
  };
}

/** YAML with as many nodes as are read: a mapping of keys under `context`. */
function yamlOfNodes(nodes: number): string {
  // The rest of the manifest is 19 nodes.
  const keys = Math.floor((nodes - 19) / 2);
  let text = 'manifest_version: "1.0"\nname: Many keys\nintent: Many keys.\nsteps: [{id: a, name: A, action: code_agent}]\ncontext:\n';
  for (let i = 0; i < keys; i += 1) text += `  key_${i}: value\n`;
  return text;
}

/** YAML of nearly the whole text limit whose keys pass the node limit: read whole, then refused. */
function yamlOverNodes(): string {
  let text = 'context:\n';
  for (let i = 0; text.length < YAML_LIMITS.maxBytes - 32; i += 1) text += `  k${i}: v\n`;
  return text;
}

const nested = (depth: number) =>
  `manifest_version: "1.0"\nname: Deep\nintent: Deep.\nsteps: [{id: a, name: A, action: code_agent}]\ncontext: {deep: ${'['.repeat(depth)}${']'.repeat(depth)}}\n`;

interface Scenario {
  name: string;
  /** Runs before each round, outside the measured window. */
  prepare?: () => Promise<void>;
  send: () => Promise<Response>;
  /** The status the request must get. */
  status: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-stall-'));
  await loadOrCreateDevIssuerKey(dataDir);
  const port = await freePort();
  const child = await startChild(
    'service',
    [...SERVICE_V8_FLAGS, '--import', 'tsx', 'src/main.ts'],
    { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_MODE: 'report' },
    port,
  );
  try {
    const origin = child.origin;
    const token = await signDevToken(dataDir, { email: 'stall@example.com' });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify(body) });
    const me = await fetch(`${origin}/v1/users/me`, { headers: auth });
    if (!me.ok) throw new Error(`GET /v1/users/me answered ${me.status}`);

    // A free account's five workflows of 200 steps, each step a tool carrying about 10 kB of the
    // context's defaults: the largest pages tools/list gives.
    const workflowIds: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const manifest = chainedManifest(`chain ${i}`, MANIFEST_LIMITS.maxSteps, 'n'.repeat(10_000));
      const res = await post('/v1/workflows', { name: `Chain ${i}`, manifest });
      if (res.status !== 201) throw new Error(`creating a workflow answered ${res.status}: ${await res.text()}`);
      workflowIds.push(((await res.json()) as { data: { workflowId: string } }).data.workflowId);
    }
    const deployment = await post('/v1/deployments', { name: 'Stall', workflowIds, allowAnonymous: true });
    if (deployment.status !== 201) throw new Error(`creating the deployment answered ${deployment.status}: ${await deployment.text()}`);
    const deploymentId = ((await deployment.json()) as { data: { deploymentId: string } }).data.deploymentId;
    const mcp = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
    const firstPage = (await (await post(`/v1/mcp/${deploymentId}`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, mcp)).json()) as {
      result: { nextCursor?: string };
    };

    // A rename changes what the catalog and the skills show: the next request renders them afresh.
    let renames = 0;
    const renameFirst = async () => {
      renames += 1;
      const res = await fetch(`${origin}/v1/workflows/${workflowIds[0]}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ name: `Chain 0, renamed ${renames}` }),
      });
      if (res.status !== 200) throw new Error(`renaming a workflow answered ${res.status}: ${await res.text()}`);
    };

    const largest = yamlOfNodes(YAML_LIMITS.maxNodes);
    const validationQuery = 'mutation ($m: JSON!) { validateManifest(manifest: $m) { valid } }';
    const scenarios: Scenario[] = [
      {
        name: `validate YAML of ${YAML_LIMITS.maxNodes} nodes`,
        send: () => post('/v1/manifests/validate', { manifest: largest }),
        status: 200,
      },
      {
        name: 'validate YAML of 256 KiB over the node limit',
        send: () => post('/v1/manifests/validate', { manifest: yamlOverNodes() }),
        status: 400,
      },
      {
        name: `validate YAML nested ${YAML_LIMITS.maxDepth - 1} levels`,
        send: () => post('/v1/manifests/validate', { manifest: nested(YAML_LIMITS.maxDepth - 3) }),
        status: 200,
      },
      {
        name: 'validate YAML nested 120,000 levels',
        send: () => post('/v1/manifests/validate', { manifest: nested(120_000) }),
        status: 400,
      },
      {
        name: 'GraphQL: validateManifest, largest YAML',
        send: () => post('/graphql', { query: validationQuery, variables: { m: largest } }),
        status: 200,
      },
      {
        name: 'tools/list, a full page (~1 MiB)',
        send: () => post(`/v1/mcp/${deploymentId}`, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, mcp),
        status: 200,
      },
      {
        name: 'tools/list, the catalog rendered afresh',
        prepare: renameFirst,
        send: () => post(`/v1/mcp/${deploymentId}`, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, mcp),
        status: 200,
      },
      {
        name: 'skills index, skills rendered and archived afresh',
        prepare: renameFirst,
        send: () => fetch(`${origin}/v1/install/${deploymentId}/.well-known/agent-skills/index.json`),
        status: 200,
      },
      {
        name: 'tools/list, the second page',
        send: () =>
          post(
            `/v1/mcp/${deploymentId}`,
            { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: firstPage.result.nextCursor } },
            mcp,
          ),
        status: 200,
      },
    ];

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    /** The longest /healthz answer while `work` runs, and how long `work` took. */
    async function probed(
      work: () => Promise<Response>,
    ): Promise<{ longestMs: number; medianMs: number; requestMs: number; status: number }> {
      let running = true;
      const latencies: number[] = [];
      const prober = (async () => {
        while (running) {
          const started = performance.now();
          await (await fetch(`${origin}/healthz`)).arrayBuffer();
          latencies.push(performance.now() - started);
        }
      })();
      const started = performance.now();
      const res = await work();
      await res.arrayBuffer();
      const requestMs = performance.now() - started;
      running = false;
      await prober;
      return { longestMs: Math.max(...latencies), medianMs: median(latencies), requestMs, status: res.status };
    }

    const idle = await probed(() => new Promise<Response>((done) => setTimeout(() => done(new Response('')), 1000)));
    log(
      `load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}; /healthz when idle: median ${fmt(idle.medianMs)} ms, longest ${fmt(idle.longestMs)} ms`,
    );
    console.log(`| Request | status | request, median ms | stall, median ms | stall, worst ms |`);
    console.log(`|---|---|---|---|---|`);
    for (const scenario of scenarios) {
      const stalls: number[] = [];
      const times: number[] = [];
      let status = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        await scenario.prepare?.();
        const r = await probed(scenario.send);
        status = r.status;
        if (r.status !== scenario.status) throw new Error(`${scenario.name}: answered ${r.status}, expected ${scenario.status}`);
        // Less the usual /healthz time only: a pause of the machine's other processes counts as a stall.
        stalls.push(Math.max(0, r.longestMs - idle.medianMs));
        times.push(r.requestMs);
      }
      console.log(`| ${scenario.name} | ${status} | ${fmt(median(times))} | ${fmt(median(stalls))} | ${fmt(Math.max(...stalls))} |`);
    }
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A deployment at the bound (WORKFLOWS_MAX workflows of the most steps, each a tool), which no
 * free account can make: its catalog rendered afresh and its first tools/list page, in this
 * process, with a timer that notes the longest the loop went without turning.
 */
async function deploymentAtTheBound(): Promise<void> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const renders: number[] = [];
  const gaps: number[] = [];
  let tools = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const workflows = Array.from({ length: WORKFLOWS_MAX }, (_, i) => ({
      workflowId: `wf_bound_${i}`,
      name: `Chain ${i}`,
      description: 'A long chain of steps.',
      version: `1.0.${round}`,
      manifest: chainedManifest(`Chain ${i}`, MANIFEST_LIMITS.maxSteps, 'n'.repeat(10_000)),
    })) as unknown as RenderableWorkflow[];
    let last = performance.now();
    let longest = 0;
    let running = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (running) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    const catalog = await catalogFor(workflows, 'adapter_three' as Adapter);
    toolPage(catalog, true, undefined);
    renders.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running = false;
    gaps.push(longest);
    tools = catalog.tools.length;
  }
  console.log(
    `| in process: ${WORKFLOWS_MAX} workflows of ${MANIFEST_LIMITS.maxSteps} step tools (${tools} tools), rendered afresh, first page | - | ${fmt(median(renders))} | ${fmt(median(gaps))} | ${fmt(Math.max(...gaps))} |`,
  );
}

main()
  .then(deploymentAtTheBound)
  .catch((error: unknown) => {
    log(String(error instanceof Error ? (error.stack ?? error.message) : error));
    process.exit(1);
  });
