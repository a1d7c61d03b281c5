import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHome, ensureAgentClients } from './clients.js';
import { startEgressProxy, type EgressProxy } from './proxy.js';
import { createMcpKey, seedDeployment, startAgentService, type AgentDeployment, type AgentService } from './service.js';
import { makeTestCertificates, startTlsFront, type TestCertificates, type TlsFront } from './tls.js';

/**
 * A deployment installed into the real agent CLIs under a public https name, as a deployed service
 * is reached: the service's PUBLIC_BASE_URL is https://workflows.test/v1, a TLS front with a
 * throwaway authority's certificate relays to it, and the CLIs' proxy sends that name to the front
 * (and refuses everything but loopback). Claude Code refuses plugin archives on loopback or plain
 * http, so its plugin marketplace can only be tested this way.
 */

const NAME = 'workflows.test';

let service: AgentService;
let certificates: TestCertificates;
let front: TlsFront;
let proxy: EgressProxy;
let deployment: AgentDeployment;
let home: AgentHome;

beforeAll(async () => {
  await ensureAgentClients();
  service = await startAgentService({ publicBaseUrl: () => `https://${NAME}/v1` });
  certificates = await makeTestCertificates([NAME]);
  front = await startTlsFront(certificates, { host: '127.0.0.1', port: Number(new URL(service.origin).port) });
  proxy = await startEgressProxy({ [NAME]: { host: '127.0.0.1', port: front.port } });
  deployment = await seedDeployment(service.t);
}, 600_000);

afterEach(async () => {
  await home?.close();
  expect(proxy.refused, 'destinations beyond loopback and the test’s name the CLI tried').toEqual([]);
});

afterAll(async () => {
  await proxy?.close();
  await front?.close();
  certificates?.remove();
  await service?.close();
});

describe('installing a deployment served under a public https name', { timeout: 180_000 }, () => {
  it('Claude Code and Codex reach the endpoint at https://workflows.test through the TLS front, trusting the test authority', async () => {
    expect(deployment.endpoint).toBe(`https://${NAME}/v1/mcp/${deployment.deploymentId}`);
    home = new AgentHome({ proxy: proxy.url, caFile: certificates.caFile });
    const key = await createMcpKey(service.t, deployment.token, deployment.deploymentId, 'Claude Code and Codex');
    await home.run('claude', [
      'mcp',
      'add',
      '--transport',
      'http',
      'workflows',
      deployment.endpoint,
      '--header',
      `Authorization: Bearer ${key.secret}`,
    ]);
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
    await home.run('claude', [
      'mcp',
      'add',
      '--transport',
      'http',
      'workflows',
      deployment.endpoint,
      '--header',
      `Authorization: Bearer ${key.secret}`,
    ]);
    const list = await home.run('claude', ['mcp', 'list']);
    expect(list.output).toMatch(/workflows: .* - ✘ Failed to connect/);
  });
});
