import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHome, ensureAgentClients } from './clients.js';
import { startEgressProxy, type EgressProxy } from './proxy.js';
import { createMcpKey, revokeKey, seedDeployment, startAgentService, type AgentDeployment, type AgentService } from './service.js';

/**
 * The real agent CLIs from npm (agent-clients/) connect to a deployment with an API key, as
 * docs/api-keys.md and docs/mcp.md tell a user to: each in a home of its own, with no way out but
 * loopback (the egress proxy refuses anything else, and each test checks that nothing was tried).
 * Each then sees the key refused once it is revoked.
 */

let service: AgentService;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let home: AgentHome;

beforeAll(async () => {
  await ensureAgentClients();
  service = await startAgentService();
  proxy = await startEgressProxy();
  deployment = await seedDeployment(service.t);
}, 600_000);

afterEach(async () => {
  await home?.close();
  expect(proxy.refused, 'destinations beyond loopback the CLI tried').toEqual([]);
});

afterAll(async () => {
  await proxy?.close();
  await service?.close();
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('real agent CLIs connect with an API key', { timeout: 180_000 }, () => {
  it('Claude Code: `claude mcp add --transport http … --header`, then `claude mcp list` shows ✔ Connected, and Failed to connect once the key is revoked', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Claude Code');
    const add = await home.run('claude', [
      ...['mcp', 'add', '--transport', 'http', 'workflows', deployment.endpoint],
      ...['--header', `Authorization: Bearer ${key.secret}`],
    ]);
    expect(add.code, add.output).toBe(0);
    // The key is kept, not printed.
    expect(add.output).not.toContain(key.secret);

    const list = await home.run('claude', ['mcp', 'list']);
    expect(list.output).toMatch(new RegExp(`workflows: ${literal(deployment.endpoint)} \\(HTTP\\) - ✔ Connected`));

    await revokeKey(service.t, deployment.token, key.keyId);
    const refused = await home.run('claude', ['mcp', 'list']);
    expect(refused.output).toMatch(/workflows: .* - ✘ Failed to connect .*HTTP 401.*unknown or revoked API key/);
  });

  it('Gemini CLI: `gemini mcp add -t http -H …`, then `gemini mcp list` shows Connected in a trusted folder, and Disconnected once the key is revoked', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Gemini CLI');
    const env = { GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    const add = await home.run(
      'gemini',
      ['mcp', 'add', '-t', 'http', '-H', `Authorization: Bearer ${key.secret}`, 'workflows', deployment.endpoint],
      {
        env,
      },
    );
    expect(add.code, add.output).toBe(0);

    const list = await home.run('gemini', ['mcp', 'list'], { env });
    expect(list.output).toMatch(new RegExp(`✓ workflows: ${literal(deployment.endpoint)} \\(http\\) - Connected`));

    await revokeKey(service.t, deployment.token, key.keyId);
    const refused = await home.run('gemini', ['mcp', 'list'], { env });
    expect(refused.output).toMatch(new RegExp(`✗ workflows: ${literal(deployment.endpoint)} \\(http\\) - Disconnected`));
  });

  it('Codex: `codex mcp add … --bearer-token-env-var`, then its app-server connects and lists the deployment’s tools, and fails once the key is revoked', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Codex');
    // Codex takes no header: it reads the key from the variable named, at each start.
    const env = { WORKFLOWS_API_KEY: key.secret };
    const add = await home.run(
      'codex',
      ['mcp', 'add', 'workflows', '--url', deployment.endpoint, '--bearer-token-env-var', 'WORKFLOWS_API_KEY'],
      { env },
    );
    expect(add.code, add.output).toBe(0);

    const [status] = await home.codexMcpServerStatus({ env });
    expect(status).toMatchObject({
      name: 'workflows',
      authStatus: 'bearerToken',
      toolsError: null,
      serverInfo: { name: 'workflow-service', title: 'Everything' },
    });
    // Both workflows' steps are offered as tools (a client the service does not name gets function calling: one tool a step).
    const titles = Object.values(status!.tools).map((tool) => tool.title);
    for (const workflow of deployment.workflowNames) expect(titles.filter((title) => title?.startsWith(`${workflow}: `)).length).toBe(4);

    await revokeKey(service.t, deployment.token, key.keyId);
    const [refused] = await home.codexMcpServerStatus({ env });
    expect(refused).toMatchObject({ name: 'workflows', serverInfo: null, tools: {} });
    expect(refused!.toolsError).toMatch(/Auth required/);
  });
});
