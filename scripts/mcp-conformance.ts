/**
 * npm run mcp:conformance — runs the official MCP conformance suite (@modelcontextprotocol/conformance)
 * against a deployment's tool endpoint: starts the service on a free loopback port with a fresh
 * embedded database, seeds one user, one workflow and one anonymous deployment, runs the scenarios
 * one by one (each bounded in time), prints the suite's output and exits non-zero on any failure.
 *
 *   npm run mcp:conformance                      # the default scenarios below
 *   npm run mcp:conformance -- tools-call-error  # other scenarios by name
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.js';
import { DEV_ISSUER, signDevToken } from '../src/auth/dev-issuer.js';
import { loadConfig } from '../src/config.js';
import { createNodeServer } from '../src/http/node.js';
import type { WorkflowManifest } from '../src/manifest/types.js';
import { versionDigest } from '../src/workflows/digest.js';

const DEFAULT_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'prompts-list', 'resources-list', 'dns-rebinding-protection'];
const SCENARIO_TIMEOUT_MS = 60_000;
const TOTAL_TIMEOUT_MS = 5 * 60_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const suite = fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/dist/index.js'));
// The suite needs Node 22 or later; the project ships Node 24 as a dev dependency.
const projectNode = join(root, 'node_modules/.bin/node');
const node = existsSync(projectNode) ? projectNode : process.execPath;

const EMAIL = 'conformance@example.com';

const MANIFEST = {
  manifest_version: '1.0',
  name: 'feature',
  intent: 'Implement a feature with tests, then review it.',
  context: { language: 'typescript' },
  steps: [
    { id: 'plan', name: 'Plan the change', action: 'planning_agent' },
    { id: 'implement', name: 'Implement', action: 'code_agent', depends_on: ['plan'] },
    { id: 'write_tests', name: 'Write tests', action: 'test_agent', depends_on: ['plan'] },
    { id: 'review', name: 'Review', action: 'review_agent', depends_on: ['implement', 'write_tests'] },
  ],
};

function runScenario(url: string, scenario: string, outputDir: string): Promise<{ code: number | null; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(node, [suite, 'server', '--url', url, '--scenario', scenario, '-o', outputDir], { stdio: 'inherit' });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, timedOut: true });
    }, SCENARIO_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut: false });
    });
  });
}

async function main(): Promise<number> {
  const scenarios = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT_SCENARIOS;
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-conformance-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', HOST: '127.0.0.1', RATE_LIMIT_MODE: 'report' });
  const app = await createApp(config);
  const server = createNodeServer((request, connection) => app.handle(request, connection));
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The workflow is written as the workflows capability stores it; the deployment goes through the API.
    const viewer = await app.services.users.resolveViewer({ issuer: DEV_ISSUER, subject: `dev|${EMAIL}`, email: EMAIL, name: null });
    const workflowId = 'wf_conformance0000000000';
    const digest = versionDigest(workflowId, viewer.userId, '1.0.0', {
      name: 'Feature pipeline',
      description: 'Ships a feature.',
      category: '',
      tags: [],
      manifest: MANIFEST as unknown as WorkflowManifest,
    });
    await app.database.prisma.workflow.create({
      data: {
        id: workflowId,
        ownerId: viewer.userId,
        name: 'Feature pipeline',
        description: 'Ships a feature.',
        currentVersion: '1.0.0',
        digest,
        manifest: MANIFEST,
        versions: {
          create: {
            id: 'wfv_conformance000000000',
            version: '1.0.0',
            name: 'Feature pipeline',
            description: 'Ships a feature.',
            digest,
            manifest: MANIFEST,
          },
        },
      },
    });
    const token = await signDevToken(dataDir, { email: EMAIL });
    const created = await app.fetch(
      new Request(`${origin}/v1/deployments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Conformance', workflowIds: [workflowId], allowAnonymous: true }),
      }),
    );
    if (created.status !== 201) throw new Error(`could not create the deployment: ${created.status} ${await created.text()}`);
    const { data } = (await created.json()) as { data: { deploymentId: string } };
    const url = `${origin}/v1/mcp/${data.deploymentId}`;
    console.log(`MCP endpoint under test: ${url}\n`);

    const deadline = Date.now() + TOTAL_TIMEOUT_MS;
    const results: { scenario: string; ok: boolean; note: string }[] = [];
    for (const scenario of scenarios) {
      if (Date.now() > deadline) {
        results.push({ scenario, ok: false, note: 'not run: total time limit reached' });
        continue;
      }
      console.log(`\n=== ${scenario}`);
      const { code, timedOut } = await runScenario(url, scenario, join(dataDir, 'results'));
      results.push({ scenario, ok: code === 0, note: timedOut ? `timed out after ${SCENARIO_TIMEOUT_MS / 1000} s` : `exit code ${code}` });
    }
    console.log('\n=== summary');
    for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.scenario}  (${r.note})`);
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed`);
    return passed === results.length ? 0 : 1;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
