import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHome, ensureAgentClients } from './clients.js';
import { startEgressProxy, type EgressProxy } from './proxy.js';
import { createMcpKey, revokeKey, seedDeployment, startAgentService, type AgentDeployment, type AgentService } from './service.js';

/**
 * The real agent CLIs from npm (agent-clients/) connect to a deployment with an API key, as
 * docs/api-keys.md and docs/mcp.md tell a user to: each in a home of its own, with no way out but
 * loopback (the egress proxy refuses anything else, and each test checks that nothing was tried).
 * Each then sees the key refused once it is revoked. Gemini CLI and Codex run the very commands the
 * install data gives (what the install page shows), pasted into a shell as they are.
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

  it('Gemini CLI: the install data’s `gemini mcp add -t http -H …` pasted as given, then `gemini mcp list` shows Connected in a trusted folder, and Disconnected once the key is revoked', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const install = await keyInstall('gemini-cli');
    expect(install.commands).toHaveLength(1);
    expect(install.commands[0]).toMatch(/^gemini mcp add -t http -H /);
    const env = { GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    const add = await home.runPasted(install.commands, { env });
    expect(add.code, add.output).toBe(0);

    const list = await home.run('gemini', ['mcp', 'list'], { env });
    expect(list.output).toMatch(new RegExp(`✓ ${literal(install.serverName)}: ${literal(install.endpoint)} \\(http\\) - Connected`));

    await revokeKey(service.t, deployment.token, install.keyId);
    const refused = await home.run('gemini', ['mcp', 'list'], { env });
    expect(refused.output).toMatch(new RegExp(`✗ ${literal(install.serverName)}: ${literal(install.endpoint)} \\(http\\) - Disconnected`));
  });

  it('Codex: the install data’s `export …` and `codex mcp add … --bearer-token-env-var` pasted as given, then its app-server connects and lists the deployment’s tools, and fails once the key is revoked', async () => {
    home = new AgentHome({ proxy: proxy.url });
    const install = await keyInstall('codex');
    // Codex takes no header: it reads the key from the variable the first line exports, at each start.
    const exported = /^export ([A-Z0-9_]+)=/.exec(install.commands[0] ?? '');
    expect(exported, install.commands.join('\n')).not.toBeNull();
    expect(install.commands[1]).toContain(`--bearer-token-env-var ${exported![1]}`);
    const add = await home.runPasted(install.commands);
    expect(add.code, add.output).toBe(0);
    // The shell Codex later starts from has the variable, as the user's does after the export.
    const env = { [exported![1]!]: install.secret };

    const [status] = await home.codexMcpServerStatus({ env });
    expect(status).toMatchObject({
      name: install.serverName,
      authStatus: 'bearerToken',
      toolsError: null,
      serverInfo: { name: 'workflow-service', title: 'Everything' },
    });
    // Both workflows' steps are offered as tools (a client the service does not name gets function calling: one tool a step).
    const titles = Object.values(status!.tools).map((tool) => tool.title);
    for (const workflow of deployment.workflowNames) expect(titles.filter((title) => title?.startsWith(`${workflow}: `)).length).toBe(4);

    await revokeKey(service.t, deployment.token, install.keyId);
    const [refused] = await home.codexMcpServerStatus({ env });
    expect(refused).toMatchObject({ name: install.serverName, serverInfo: null, tools: {} });
    expect(refused!.toolsError).toMatch(/Auth required/);
  });
});

/**
 * What the install page gives `client` for an API key: the commands of its key form in the install
 * data (`POST /v1/deployments/:id/install/key`, which makes a key for the deployment and fills it in).
 */
async function keyInstall(client: 'gemini-cli' | 'codex') {
  const res = await service.t.call('POST', `/v1/deployments/${deployment.deploymentId}/install/key`, { token: deployment.token });
  if (res.status !== 201) throw new Error(`POST …/install/key: ${res.status} ${res.text}`);
  const { install, apiKey } = res.body.data as {
    install: {
      serverName: string;
      endpoint: string;
      clients: { client: string; forms: { auth: string; kind: string; commands: string[] }[] }[];
    };
    apiKey: { keyId: string; secret: string };
  };
  const form = install.clients.find((c) => c.client === client)?.forms.find((f) => f.auth === 'api_key' && f.kind === 'command');
  if (!form) throw new Error(`the install data has no API-key command for ${client}`);
  // The key is in the commands, as the user copies them.
  expect(form.commands.join('\n')).toContain(apiKey.secret);
  return {
    commands: form.commands,
    serverName: install.serverName,
    endpoint: install.endpoint,
    keyId: apiKey.keyId,
    secret: apiKey.secret,
  };
}
