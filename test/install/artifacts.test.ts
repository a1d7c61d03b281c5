import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedEndpointOwner } from '../helpers/mcp.js';
import { seedManifest, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * Install artefacts are built once per content and charged before any work: the catalogs of an
 * anonymous deployment are rendered, zipped and hashed once however often strangers fetch them,
 * and again only when the deployment or a workflow changes; a deployment too large for an archive
 * is refused with a clear error (and the refusal costs nothing the next time); the user's catalog
 * charges the key's owner before it builds anything, so a refused request builds nothing.
 */

const base = 'https://workflows.test/v1';

type Lookups = { hit: number; miss: number; refused: number };

async function lookups(t: TestApp): Promise<Lookups> {
  const text = (await t.call('GET', '/metrics')).text;
  const count = (outcome: string) =>
    Number(new RegExp(`^install_artifact_lookups_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)![1]);
  return { hit: count('hit'), miss: count('miss'), refused: count('refused') };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The endpoint owner and their deployment "Open Tools" (both workflows, anonymous). */
interface World {
  token: string;
  userId: string;
  owned: string;
  anonymousId: string;
}

const test = serviceTestWith({ PUBLIC_BASE_URL: base }).extend<{
  world: World;
  get: (path: string) => Promise<{ status: number; bytes: Uint8Array }>;
}>({
  world: [
    async ({ service: t }, use) => {
      const owner = await seedEndpointOwner(t);
      const anonymousId = await owner.deploy({
        name: 'Open Tools',
        workflowIds: [owner.owned, owner.subscribed],
        allowAnonymous: true,
      });
      await use({ token: owner.token, userId: owner.userId, owned: owner.owned, anonymousId });
    },
    { scope: 'file' },
  ],
  /** A file of the anonymous deployment's catalogs, fetched as a stranger does. */
  get: [
    async ({ service: t, world: { anonymousId } }, use) =>
      use(async (path) => {
        const response = await t.app.fetch(new Request(`http://127.0.0.1/v1/install/${anonymousId}/${path}`));
        return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
      }),
    { scope: 'file' },
  ],
});

describe('install artefacts built once per content', () => {
  test("a stranger's repeated fetches build the anonymous catalogs once; a change builds them again", async ({
    service: t,
    world: { token, owned, anonymousId },
    get,
  }) => {
    const before = await lookups(t);
    const marketplace = JSON.parse(new TextDecoder().decode((await get('marketplace.json')).bytes));
    const plugin = marketplace.plugins[0];
    const index = JSON.parse(new TextDecoder().decode((await get('.well-known/agent-skills/index.json')).bytes));
    expect(index.skills).toHaveLength(2);
    for (let i = 0; i < 5; i++) {
      const archive = await get(`plugin/${plugin.version}.zip`);
      expect(archive.status).toBe(200);
      expect(sha256(archive.bytes)).toBe(plugin.source.sha256);
      expect(JSON.parse(new TextDecoder().decode((await get('marketplace.json')).bytes))).toEqual(marketplace);
      const skill = await get(`.well-known/agent-skills/${index.skills[0].url}`);
      expect(`sha256:${sha256(skill.bytes)}`).toBe(index.skills[0].digest);
    }
    const after = await lookups(t);
    // 2 + 5 × 3 requests: one build, every other request served what was built.
    expect(after.miss - before.miss).toBe(1);
    expect(after.hit - before.hit).toBe(16);

    // A new version of a workflow it serves: built again, once, with a new plugin version.
    const updated = await t.call('PUT', `/v1/workflows/${owned}`, { token, body: { description: 'Ships a feature, faster.' } });
    expect(updated.status, updated.text).toBe(200);
    const changed = JSON.parse(new TextDecoder().decode((await get('marketplace.json')).bytes)).plugins[0];
    expect(changed.version).not.toBe(plugin.version);
    expect((await get(`plugin/${plugin.version}.zip`)).status).toBe(404);
    expect((await get(`plugin/${changed.version}.zip`)).status).toBe(200);
    // The deployment's own fields are content too.
    const renamed = await t.call('PUT', `/v1/deployments/${anonymousId}`, { token, body: { description: 'Open to all.' } });
    expect(renamed.status).toBe(200);
    const redescribed = JSON.parse(new TextDecoder().decode((await get('marketplace.json')).bytes)).plugins[0];
    expect(redescribed.description).toBe('Open to all.');
    const last = await lookups(t);
    expect(last.miss - after.miss).toBe(2);
  });

  test('a deployment whose skills exceed the archive bound is refused with a clear error, and refusing again builds nothing', async ({
    service: t,
    world: { token, userId },
  }) => {
    // Seeded (the API bounds a manifest to 256 KiB): steps whose names add up to more than 8 MiB of skills.
    const long = 'x'.repeat(30_000);
    const manifest = seedManifest('huge');
    manifest.steps = Array.from({ length: 300 }, (_v, i) => ({ id: `s${i}`, name: `${long} ${i}`, action: 'code_agent' }));
    const huge = await seedWorkflow(t, userId, { name: 'Huge', versions: [{ version: '1.0.0', manifest }] });
    const hugeId = (await t.call('POST', '/v1/deployments', { token, body: { name: 'Huge', workflowIds: [huge], allowAnonymous: true } }))
      .body.data.deploymentId as string;

    const before = await lookups(t);
    for (const path of ['marketplace.json', 'plugin/1.0.0.zip', '.well-known/agent-skills/index.json']) {
      const res = await t.call('GET', `/v1/install/${hugeId}/${path}`);
      expect(res.status, path).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.body.error.details).toMatchObject({ reason: 'install_archive_too_large', maxBytes: 8 * 1024 * 1024 });
      expect(res.body.error.message).toMatch(/over the 8\.0 MiB an install archive or skills catalog may hold/);
    }
    const after = await lookups(t);
    expect(after.refused - before.refused).toBe(3);
    expect(after.miss - before.miss).toBe(0);
    // Its tool endpoint is not affected, and the owner's catalog lists the other deployments.
    const key = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'all', scope: 'api' } })).body.data.secret;
    const catalog = await t.call('GET', `/v1/install/user/${key}/marketplace.json`);
    expect(catalog.status).toBe(200);
    expect(
      JSON.parse(catalog.text)
        .plugins.map((p: { source: { url: string } }) => p.source.url)
        .join(' '),
    ).not.toContain(hugeId);
    expect(JSON.parse(catalog.text).plugins.length).toBeGreaterThan(0);
  });
});

describe("the user's catalog charges the key's owner before any work", () => {
  let t: TestApp;
  let token: string;
  let key: string;

  // A service of its own: this one enforces rate limits, and the file's fixture service (above) is
  // one per file, so a second serviceTestWith here would be handed that service.
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: base, RATE_LIMIT_MODE: 'enforce' } });
    token = await t.token('free@example.com', { plan: 'free' });
    const userId = await userIdOf(t, token);
    const workflow = await seedWorkflow(t, userId, { name: 'Feature pipeline' });
    const made = await t.call('POST', '/v1/deployments', { token, body: { name: 'Mine', workflowIds: [workflow] } });
    expect(made.status).toBe(201);
    key = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'catalog', scope: 'api' } })).body.data.secret;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts against the owner's rate limit, and a refused request builds nothing", async () => {
    const remaining = async () => Number((await t.call('GET', '/v1/users/me', { token })).headers.get('x-ratelimit-remaining'));
    const start = await remaining();
    for (let i = 0; i < 3; i++) {
      const res = await t.call('GET', `/v1/install/user/${key}/marketplace.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    }
    // Three catalog requests and one /users/me later.
    expect(await remaining()).toBe(start - 4);

    let refused: { status: number; body: any } | null = null;
    for (let i = 0; i < 40 && !refused; i++) {
      const res = await t.call('GET', `/v1/install/user/${key}/marketplace.json`);
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused).not.toBeNull();
    expect(refused!.body.error.code).toBe('RATE_LIMITED');
    const before = await lookups(t);
    for (let i = 0; i < 5; i++) expect((await t.call('GET', `/v1/install/user/${key}/marketplace.json`)).status).toBe(429);
    // No artefact was looked up, let alone built, for the refused requests.
    expect(await lookups(t)).toEqual(before);
    // The owner's budget is the one spent: their own API calls are refused too.
    expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(429);
  });
});
