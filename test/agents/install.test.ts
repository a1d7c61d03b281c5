import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHome, ensureAgentClients } from './clients.js';
import { type EgressProxy } from './proxy.js';
import { createMcpKey, installClaudePlugin, installDataOf, seedDeployment, type AgentDeployment, type AgentService } from './service.js';
import { type TestCertificates } from './tls.js';
import { PUBLIC_NAME, startPublicNameService, type PublicNameService } from './public-name.js';

/**
 * A deployment installed into the real agent CLIs under a public https name, as a deployed service
 * is reached: the service's PUBLIC_BASE_URL is https://workflows.test/v1, a TLS front with a
 * throwaway authority's certificate relays to it, and the CLIs' proxy sends that name to the front
 * (and refuses everything but loopback). Claude Code refuses plugin archives on loopback or plain
 * http, so its plugin marketplace can only be tested this way.
 */

const NAME = PUBLIC_NAME;

let stack: PublicNameService;
let service: AgentService;
let certificates: TestCertificates;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let home: AgentHome;

beforeAll(async () => {
  await ensureAgentClients();
  stack = await startPublicNameService();
  ({ service, certificates, proxy } = stack);
  deployment = await seedDeployment(service.t);
}, 600_000);

afterEach(async () => {
  await home?.close();
  expect(proxy.refused, 'destinations beyond loopback and the test’s name the CLI tried').toEqual([]);
});

afterAll(async () => {
  await stack?.close();
});

/** `claude mcp add` of the deployment's endpoint with the key in an Authorization header. */
const claudeAddWithKey = (secret: string) =>
  home.run('claude', [
    'mcp',
    'add',
    '--transport',
    'http',
    'workflows',
    deployment.endpoint,
    '--header',
    `Authorization: Bearer ${secret}`,
  ]);

describe('installing a deployment served under a public https name', { timeout: 180_000 }, () => {
  it('Claude Code and Codex reach the endpoint at https://workflows.test through the TLS front, trusting the test authority', async () => {
    expect(deployment.endpoint).toBe(`https://${NAME}/v1/mcp/${deployment.deploymentId}`);
    home = new AgentHome({ proxy: proxy.url, caFile: certificates.caFile });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Claude Code and Codex');
    await claudeAddWithKey(key.secret);
    const list = await home.run('claude', ['mcp', 'list']);
    expect(list.output).toContain(`workflows: ${deployment.endpoint} (HTTP) - ✔ Connected`);

    const env = { WORKFLOWS_API_KEY: key.secret };
    await home.run('codex', ['mcp', 'add', 'workflows', '--url', deployment.endpoint, '--bearer-token-env-var', 'WORKFLOWS_API_KEY'], {
      env,
    });
    const [status] = await home.codexMcpServerStatus({ env });
    expect(status).toMatchObject({
      name: 'workflows',
      httpOrigin: `https://${NAME}`,
      toolsError: null,
      serverInfo: { name: 'workflow-service' },
    });
    expect(proxy.passed).toContain(`${NAME}:443`);
  });

  it('without the test authority trusted, Claude Code refuses the certificate (the CLIs check it)', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Untrusting');
    await claudeAddWithKey(key.secret);
    const list = await home.run('claude', ['mcp', 'list']);
    expect(list.output).toMatch(/workflows: .* - ✘ Failed to connect/);
  });

  it('Claude Code: `claude plugin marketplace add <the catalog URL>`, `claude plugin install … --json -y`: the skills are on disk and the plugin’s server shows ✔ Connected', async () => {
    home = new AgentHome({ proxy: proxy.url, caFile: certificates.caFile });
    const install = await installData();
    expect(install.claudeMarketplaceUrl).toMatch(
      new RegExp(`^https://${NAME.replace('.', '\\.')}/v1/install/${deployment.deploymentId}/wfk_\\w+/marketplace\\.json$`),
    );
    await installClaudePlugin(home, install);
    // Each workflow of the deployment is a skill of the plugin, on disk.
    const skills = filesNamed(join(home.home, '.claude'), 'SKILL.md');
    expect(skills.length, JSON.stringify(skills)).toBe(deployment.workflowNames.length);
    for (const name of deployment.workflowNames) expect(skills.some((file) => readFileSync(file, 'utf8').includes(name))).toBe(true);
    const list = await home.run('claude', ['mcp', 'list']);
    expect(list.output).toMatch(new RegExp(`${deployment.endpoint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(HTTP\\) - ✔ Connected`));
  });

  it('skills: `skills add <the install origin> -y` (the pinned CLI `npx skills` runs) installs the deployment’s skills, each file the bytes its digest names', async () => {
    home = new AgentHome({ proxy: proxy.url, caFile: certificates.caFile });
    const install = await installData();
    const index = await (
      await service.t.app.fetch(new Request(install.skillsIndexUrl.replace(`https://${NAME}`, 'http://127.0.0.1')))
    ).json();
    const added = await home.run('skills', ['add', install.skillsSource, '-y'], { timeoutMs: 120_000 });
    expect(added.code, added.output).toBe(0);
    const landed = filesNamed(home.work, 'SKILL.md').concat(filesNamed(home.home, 'SKILL.md'));
    expect(index.skills.length).toBe(deployment.workflowNames.length);
    for (const skill of index.skills as { name: string; digest: string }[]) {
      const file = landed.find((path) => path.split('/').at(-2) === skill.name);
      expect(file, `${skill.name} among ${landed.map((path) => relative(home.root, path)).join(', ')}`).toBeDefined();
      expect(`sha256:${createHash('sha256').update(readFileSync(file!)).digest('hex')}`).toBe(skill.digest);
    }
  });
});

const installData = () => installDataOf(service.t, deployment);

/** Every file called `name` under `dir`. */
function filesNamed(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === name)
    .map((entry) => join(entry.parentPath, entry.name));
}
