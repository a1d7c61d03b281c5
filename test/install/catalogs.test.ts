import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createLogger } from '../../src/logger.js';
import type { TestApp } from '../helpers/app.js';
import { inProcessFetch, MODERN, seedEndpointOwner } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { readZip } from './zip-reader.js';

/**
 * What clients fetch by URL alone, fetched through the app and checked byte for byte: the Claude
 * Code marketplace and its archive (SHA-256 recomputed, files opened), the Agent Skills index (each
 * digest recomputed over the bytes served), the user's catalog, and the key-bound endpoint, which
 * never offers OAuth and whose key never reaches the service's logs or metrics.
 */

const base = 'https://workflows.test/v1';

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The path of one of the service's own https URLs (the app is called in process). */
function pathOf(url: string): string {
  expect(url.startsWith(base)).toBe(true);
  return new URL(url).pathname;
}

/** The URLs of the service's own catalogs, fetched as a client does (without a token). */
function fetcherOf(t: TestApp) {
  async function get(url: string) {
    const response = await t.app.fetch(new Request(`http://127.0.0.1${pathOf(url)}`));
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  }

  async function getJson(url: string) {
    const res = await get(url);
    expect(res.status, new TextDecoder().decode(res.bytes)).toBe(200);
    return JSON.parse(new TextDecoder().decode(res.bytes));
  }

  return { get, getJson };
}

/** What the service logs, line by line. */
const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

/** The endpoint owner's deployments "Code Review" (private, with an install key), "Open Tools" (anonymous) and "Notes", and a stranger. */
interface World {
  token: string;
  otherToken: string;
  privateId: string;
  anonymousId: string;
  otherPrivateId: string;
  key: string;
}

const test = serviceTestWith({ PUBLIC_BASE_URL: base }, { logger: createLogger('info', sink) }).extend<{
  world: World;
  fetcher: ReturnType<typeof fetcherOf>;
}>({
  world: [
    async ({ service: t }, use) => {
      const owner = await seedEndpointOwner(t);
      const token = owner.token;
      const otherToken = await t.token('stranger@example.com');
      const privateId = await owner.deploy({
        name: 'Code Review',
        description: 'Reviews code.',
        workflowIds: [owner.owned, owner.subscribed],
      });
      const anonymousId = await owner.deploy({ name: 'Open Tools', workflowIds: [owner.owned], allowAnonymous: true });
      const otherPrivateId = await owner.deploy({ name: 'Notes', workflowIds: [owner.owned] });
      const made = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token });
      await use({ token, otherToken, privateId, anonymousId, otherPrivateId, key: made.body.data.apiKey.secret });
    },
    { scope: 'file' },
  ],
  fetcher: [async ({ service }, use) => use(fetcherOf(service)), { scope: 'file' }],
});

describe('install catalogs and the key-bound endpoint', () => {
  test("a private deployment's marketplace pins an archive on the same origin whose SHA-256 and files hold", async ({
    service: t,
    world: { token, privateId, key },
    fetcher: { get, getJson },
  }) => {
    const install = (await t.call('GET', `/v1/deployments/${privateId}/install`, { token })).body.data;
    const url = install.claudeMarketplaceUrl.replace('<API_KEY>', key);
    const marketplace = await getJson(url);
    const [plugin] = marketplace.plugins;
    expect(marketplace).toMatchObject({ name: `${plugin.name}-workflows`, owner: { name: expect.any(String) } });
    expect(install.claudePlugin).toBe(`${plugin.name}@${marketplace.name}`);
    expect(marketplace.plugins).toHaveLength(1);
    expect(plugin.source.source).toBe('archive');
    expect(new URL(plugin.source.url).origin).toBe(new URL(url).origin);
    expect(plugin.source.url).toBe(`${base}/install/${privateId}/${key}/plugin/${plugin.version}.zip`);

    const archive = await get(plugin.source.url);
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-type')).toBe('application/zip');
    expect(sha256(archive.bytes)).toBe(plugin.source.sha256);
    // The same bytes on every request.
    expect(sha256((await get(plugin.source.url)).bytes)).toBe(plugin.source.sha256);

    const files = readZip(archive.bytes);
    const manifest = JSON.parse(files.get('.claude-plugin/plugin.json')!.toString('utf8'));
    expect(manifest).toMatchObject({
      name: plugin.name,
      version: plugin.version,
      mcpServers: {
        'code-review': { type: 'http', url: `${base}/mcp/${privateId}`, headers: { Authorization: 'Bearer ${user_config.api_key}' } },
      },
      userConfig: { api_key: { type: 'string', sensitive: true, required: true } },
    });
    // The key of the address is not copied into the plugin.
    for (const content of files.values()) expect(content.toString('utf8')).not.toContain(key);
    const skills = [...files.keys()].filter((p) => p.startsWith('skills/'));
    expect(skills).toHaveLength(2);
    for (const path of skills) {
      expect(path).toMatch(/^skills\/[a-z0-9-]+\/SKILL\.md$/);
      const text = files.get(path)!.toString('utf8');
      const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!);
      expect(front.name).toBe(path.split('/')[1]);
    }
  });

  test('the skills index names each skill with the digest of exactly the bytes served', async ({
    world: { privateId, key },
    fetcher: { get, getJson },
  }) => {
    const index = await getJson(`${base}/install/${privateId}/${key}/.well-known/agent-skills/index.json`);
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills).toHaveLength(2);
    for (const entry of index.skills) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'digest', 'name', 'type', 'url']);
      expect(entry.type).toBe('skill-md');
      expect(entry.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(entry.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      const artifact = new URL(entry.url, `${base}/install/${privateId}/${key}/.well-known/agent-skills/index.json`).href;
      const served = await get(artifact);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toContain('text/markdown');
      expect(`sha256:${sha256(served.bytes)}`).toBe(entry.digest);
      expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(new TextDecoder().decode(served.bytes))![1]!).name).toBe(entry.name);
    }
  });

  test('updating the deployment gives the plugin a new version; the old archive is no longer served', async ({
    service: t,
    world: { token, privateId, key },
    fetcher: { get, getJson },
  }) => {
    const url = `${base}/install/${privateId}/${key}/marketplace.json`;
    const before = (await getJson(url)).plugins[0];
    expect((await getJson(url)).plugins[0].version).toBe(before.version);
    const res = await t.call('PUT', `/v1/deployments/${privateId}`, { token, body: { description: 'Reviews code, carefully.' } });
    expect(res.status).toBe(200);
    const after = (await getJson(url)).plugins[0];
    expect(after.version).not.toBe(before.version);
    expect(after.source.sha256).not.toBe(before.source.sha256);
    const old = await get(before.source.url);
    expect(old.status).toBe(404);
    expect((await get(after.source.url)).status).toBe(200);
  });

  test('an anonymous deployment has its catalogs without a key; a private one has none without its key', async ({
    service: t,
    world: { privateId, anonymousId },
    fetcher: { get, getJson },
  }) => {
    const marketplace = await getJson(`${base}/install/${anonymousId}/marketplace.json`);
    const plugin = marketplace.plugins[0];
    expect(plugin.source.url).toBe(`${base}/install/${anonymousId}/plugin/${plugin.version}.zip`);
    const files = readZip((await get(plugin.source.url)).bytes);
    const manifest = JSON.parse(files.get('.claude-plugin/plugin.json')!.toString('utf8'));
    expect(manifest.userConfig).toBeUndefined();
    expect(Object.values(manifest.mcpServers)).toEqual([{ type: 'http', url: `${base}/mcp/${anonymousId}` }]);
    expect((await getJson(`${base}/install/${anonymousId}/.well-known/agent-skills/index.json`)).skills).toHaveLength(1);

    for (const path of ['marketplace.json', '.well-known/agent-skills/index.json']) {
      for (const id of [privateId, 'dep_unknown']) {
        const res = await t.call('GET', `/v1/install/${id}/${path}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    }
  });

  test('a key is refused with 403 (never 401) when revoked, malformed, limited to another deployment or of another user', async ({
    service: t,
    world: { otherToken, privateId, otherPrivateId, key },
  }) => {
    const limited = await t.call('GET', `/v1/install/${otherPrivateId}/${key}/marketplace.json`);
    expect(limited.status).toBe(403);
    const strangerKey = (await t.call('POST', '/v1/api-keys', { token: otherToken, body: { name: 'mine' } })).body.data.secret;
    const stranger = await t.call('GET', `/v1/install/${privateId}/${strangerKey}/marketplace.json`);
    expect(stranger.status).toBe(404);
    const malformed = await t.call('GET', `/v1/install/${privateId}/wfk_short/marketplace.json`);
    expect(malformed.status).toBe(403);
    expect(malformed.body.error.details.reason).toBe('install_key_refused');
    expect(malformed.headers.get('www-authenticate')).toBeNull();
    const wrongMethod = await t.call('POST', `/v1/install/${privateId}/${key}/marketplace.json`);
    expect(wrongMethod.status).toBe(405);
    const unknownPath = await t.call('GET', `/v1/install/${privateId}/${key}/nothing-here`);
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.text).not.toContain(key);
  });

  test('no malformed install address, nor a discovery path derived from one, repeats a key in its error', async ({
    service: t,
    world: { privateId, anonymousId, key },
  }) => {
    const body = key.slice('wfk_'.length);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    };
    const cases: Array<[string, string]> = [
      // The id left out, the key in its place.
      ['GET', `/v1/install/${key}/marketplace.json`],
      ['GET', `/v1/install/${key}/.well-known/agent-skills/index.json`],
      ['GET', `/v1/install/${key}/plugin/1.0.0.zip`],
      ['POST', `/v1/install/${key}/${key}/mcp`],
      // The key without its prefix, or cut short, where the id or the key belongs.
      ['GET', `/v1/install/${body}/marketplace.json`],
      ['GET', `/v1/install/${body}/${key}/marketplace.json`],
      ['POST', `/v1/install/${body}/${key}/mcp`],
      ['GET', `/v1/install/${privateId}/${key.slice(0, -3)}/marketplace.json`],
      ['GET', `/v1/install/${privateId}/${body}/marketplace.json`],
      // The key where a skill's name or a version belongs.
      ['GET', `/v1/install/${privateId}/${key}/.well-known/agent-skills/${key}/SKILL.md`],
      ['GET', `/v1/install/${anonymousId}/.well-known/agent-skills/${body}/SKILL.md`],
      ['GET', `/v1/install/${privateId}/${key}/plugin/${key}.zip`],
      ['GET', `/v1/install/user/${key}/${key}`],
      ['GET', `/v1/install/user/${key}/marketplace.json/${body}`],
      // An unknown deployment of the right shape, with the key.
      ['GET', `/v1/install/dep_${'a'.repeat(20)}/${key}/marketplace.json`],
      // What a client derives from the key-bound endpoint (RFC 9728, RFC 8414).
      ['GET', `/.well-known/oauth-protected-resource/v1/install/${privateId}/${key}/mcp`],
      ['GET', `/.well-known/oauth-protected-resource/v1/install/${privateId}/${key}`],
      ['GET', `/.well-known/oauth-protected-resource${encodeURIComponent(`/v1/install/${privateId}/${key}/mcp`)}`],
      ['GET', `/.well-known/openid-configuration/v1/install/${privateId}/${key}/mcp/extra`],
    ];
    for (const [method, path] of cases) {
      const res = await t.call(method, path, {
        ...(method === 'POST' ? { body: initialize, headers: { accept: 'application/json, text/event-stream' } } : {}),
      });
      // The authorization server's metadata is published under any suffix; everything else is refused.
      if (!path.startsWith('/.well-known/openid-configuration/')) expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(res.text, `${method} ${path}`).not.toContain(body.slice(0, 12));
      expect(res.text, `${method} ${path}`).not.toContain(encodeURIComponent(body.slice(0, 12)));
      for (const [name, value] of res.headers) expect(value, `${method} ${path}: ${name}`).not.toContain(body.slice(0, 12));
    }
  });

  test("the user's catalog lists every deployment its key opens, each with a pinned archive", async ({
    service: t,
    world: { token, privateId, key },
    fetcher: { get, getJson },
  }) => {
    const all = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'all deployments' } })).body.data.secret;
    const catalog = await getJson(`${base}/install/user/${all}/marketplace.json`);
    expect(catalog.plugins).toHaveLength(3);
    expect(new Set(catalog.plugins.map((p: { name: string }) => p.name)).size).toBe(3);
    for (const plugin of catalog.plugins) {
      const archive = await get(plugin.source.url);
      expect(archive.status).toBe(200);
      expect(sha256(archive.bytes)).toBe(plugin.source.sha256);
    }
    const limited = await getJson(`${base}/install/user/${key}/marketplace.json`);
    expect(limited.plugins).toHaveLength(1);
    expect(limited.plugins[0].source.url).toContain(`/install/${privateId}/`);
    const revoked = await t.call('GET', `/v1/install/user/wfk_${'0'.repeat(40)}/marketplace.json`);
    expect(revoked.status).toBe(403);
  });

  test('the key-bound endpoint serves the deployment to the official client with no header and never offers OAuth', async ({
    service: t,
    world: { token, privateId, otherPrivateId, key },
  }) => {
    const install = (await t.call('GET', `/v1/deployments/${privateId}/install`, { token })).body.data;
    const url = new URL(install.keyBoundEndpoint.replace('<API_KEY>', key).replace(base, 'http://127.0.0.1/v1'));
    const transport = new StreamableHTTPClientTransport(url, { fetch: inProcessFetch(t.app) });
    const client = new Client({ name: 'Cursor', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    await client.close();

    // A refused key: 403 and no challenge, so no client starts looking for OAuth.
    const post = (path: string) =>
      t.call('POST', path, {
        headers: { accept: 'application/json, text/event-stream' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        },
      });
    const refused = await post(`/v1/install/${privateId}/wfk_${'1'.repeat(40)}/mcp`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBeNull();
    const limited = await post(`/v1/install/${otherPrivateId}/${key}/mcp`);
    expect(limited.status).toBe(403);
    expect(limited.headers.get('www-authenticate')).toBeNull();
    // No protected resource metadata names the key-bound address.
    const prm = await t.call('GET', `/.well-known/oauth-protected-resource/v1/install/${privateId}/${key}/mcp`);
    expect(prm.status).toBe(404);
    // The plain endpoint, by contrast, does challenge.
    const plain = await post(`/v1/mcp/${privateId}`);
    expect(plain.status).toBe(401);
    expect(plain.headers.get('www-authenticate')).toContain('resource_metadata');
  });

  test("no key in any address reaches the service's logs or metrics", async ({ service: t, world: { key } }) => {
    // Every route above ran with the key in its path; the logs and the metrics name templates only.
    const metrics = await t.call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('/v1/install/:deploymentId/:key/mcp');
    expect(logLines.length).toBeGreaterThan(10);
    const logged = logLines.join('');
    expect(logged).toContain('/v1/install/:deploymentId/:key/marketplace.json');
    expect(logged).not.toContain(key);
    expect(logged).not.toMatch(/wfk_[0-9A-Za-z]{8}/);
    expect(metrics.text).not.toMatch(/wfk_/);
  });
});
