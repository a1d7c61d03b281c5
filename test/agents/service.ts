import type { Server } from 'node:http';
import { expect } from 'vitest';
import { createNodeServer } from '../../src/http/node.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedEndpointOwner } from '../helpers/mcp.js';
import { freePort } from '../helpers/process.js';
import type { AgentHome } from './clients.js';

/** The service as the agent CLIs reach it: an instance on a fresh database, listening on a free loopback port. */
export interface AgentService {
  t: TestApp;
  /** `http://127.0.0.1:<port>`, where it listens. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Starts an instance (PGlite, or PostgreSQL when DATABASE_URL is set) on node:http as `npm start`
 * serves it. `publicBaseUrl` is PUBLIC_BASE_URL given the port (default `http://127.0.0.1:<port>/v1`).
 */
export async function startAgentService(
  options: { env?: Record<string, string>; publicBaseUrl?: (port: number) => string; dashboardDir?: string | null } = {},
): Promise<AgentService> {
  const port = await freePort();
  const t = await startTestApp({
    env: {
      PUBLIC_BASE_URL: options.publicBaseUrl?.(port) ?? `http://127.0.0.1:${port}/v1`,
      // The service reaches nothing beyond loopback either: known IDE clients (Claude Code) sign in
      // with the pinned copies of their client ID metadata documents.
      OAUTH_CLIENT_METADATA_FETCH: 'off',
      ...options.env,
    },
    dashboardDir: options.dashboardDir ?? null,
  });
  const server: Server = createNodeServer((request, connection) => t.app.handle(request, connection));
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', done);
  });
  return {
    t,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await t.close();
    },
  };
}

export interface AgentDeployment {
  /** The owner's development-issuer token. */
  token: string;
  deploymentId: string;
  /** The deployment's `mcpEndpoint`, as the dashboard and the API give it. */
  endpoint: string;
  /** The workflows offered there, by name. */
  workflowNames: string[];
}

/**
 * A team-plan owner with a private deployment of two workflows (their own "Feature pipeline" and
 * another author's "Bug triage"), created through REST as a user creates it.
 */
export async function seedDeployment(t: TestApp, name = 'Everything'): Promise<AgentDeployment> {
  const owner = await seedEndpointOwner(t);
  const deploymentId = await owner.deploy({ name, workflowIds: [owner.owned, owner.subscribed] });
  const res = await t.call('GET', `/v1/deployments/${deploymentId}`, { token: owner.token });
  if (res.status !== 200) throw new Error(`GET /v1/deployments/${deploymentId}: ${res.status} ${res.text}`);
  return { token: owner.token, deploymentId, endpoint: res.body.data.mcpEndpoint, workflowNames: ['Feature pipeline', 'Bug triage'] };
}

/** An API key of scope `mcp` for one deployment, made through REST. */
export async function createMcpKey(
  t: TestApp,
  token: string,
  deploymentId: string,
  name: string,
): Promise<{ keyId: string; secret: string }> {
  const res = await t.call('POST', '/v1/api-keys', { token, body: { name, scope: 'mcp', deploymentIds: [deploymentId] } });
  if (res.status !== 201) throw new Error(`POST /v1/api-keys: ${res.status} ${res.text}`);
  return { keyId: res.body.data.keyId, secret: res.body.data.secret };
}

/** Revokes a key through REST, as the Account page does. */
export async function revokeKey(t: TestApp, token: string, keyId: string): Promise<void> {
  const res = await t.call('DELETE', `/v1/api-keys/${keyId}`, { token });
  if (res.status !== 200) throw new Error(`DELETE /v1/api-keys/${keyId}: ${res.status} ${res.text}`);
}

/** A deployment's install data with a new key filled in, as the install page makes it. */
export async function installDataOf(
  t: TestApp,
  deployment: Pick<AgentDeployment, 'token' | 'deploymentId'>,
): Promise<{ claudeMarketplaceUrl: string; claudePlugin: string; skillsSource: string; skillsIndexUrl: string; secret: string }> {
  const res = await t.call('POST', `/v1/deployments/${deployment.deploymentId}/install/key`, { token: deployment.token });
  if (res.status !== 201) throw new Error(`POST …/install/key: ${res.status} ${res.text}`);
  const data = res.body.data;
  return { ...data.install, secret: data.apiKey.secret as string };
}

/** `claude plugin marketplace add` of the deployment's catalog, then `claude plugin install` of its plugin with the key as its setting: both succeed. */
export async function installClaudePlugin(
  home: AgentHome,
  install: { claudeMarketplaceUrl: string; claudePlugin: string; secret: string },
): Promise<void> {
  const added = await home.run('claude', ['plugin', 'marketplace', 'add', install.claudeMarketplaceUrl]);
  expect(added.code, added.output).toBe(0);
  const installed = await home.run('claude', [
    'plugin',
    'install',
    install.claudePlugin,
    '--json',
    '-y',
    '--config',
    `api_key=${install.secret}`,
  ]);
  expect(installed.code, installed.output).toBe(0);
}
