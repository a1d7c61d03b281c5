import { describe, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import type { TestApp } from '../helpers/app.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * An author named "Ada Author" with a public workflow, and an owner on the team plan with a private
 * workflow of their own, subscribed pinned to the author's, and an anonymous deployment of both.
 */
interface ProvenanceWorld {
  author: string;
  authorId: string;
  owner: string;
  theirs: Record<string, any>;
  mine: Record<string, any>;
  deploymentId: string;
}

const test = serviceTest.extend<{ world: ProvenanceWorld }>({
  world: [
    async ({ service: t }, use) => {
      const author = await t.token('prov-author@example.com');
      const owner = await t.token('prov-owner@example.com');
      const authorId = await userIdOf(t, author);
      const ownerId = await userIdOf(t, owner);
      await seedPlan(t, ownerId, 'team');
      const named = await t.graphql('mutation { setDisplayName(displayName: "Ada Author") { displayName } }', {}, author);
      expect(named.body.errors).toBeUndefined();
      const theirs = await createWorkflow(t, author, { name: 'Their review', visibility: 'public' });
      const mine = await createWorkflow(t, owner, { name: 'My review' });
      expect((await t.call('POST', `/v1/library/${theirs.workflowId}`, { token: owner, body: { autoUpdate: false } })).status).toBe(201);
      const dep = await t.call('POST', '/v1/deployments', {
        token: owner,
        body: { name: 'Both', workflowIds: [mine.workflowId, theirs.workflowId], allowAnonymous: true },
      });
      expect(dep.status, dep.text).toBe(201);
      await use({ author, authorId, owner, theirs, mine, deploymentId: dep.body.data.deploymentId as string });
    },
    { scope: 'file' },
  ],
});

/**
 * The provenance every rendering of a workflow is handed (the renderers print it): the author's
 * display name (never an e-mail address) and stable handle, the digest of the version served, and
 * whether the author is someone other than the person served. Read through the services the MCP
 * endpoint, the install catalogs and the skills use (one statement for the whole bundle), and
 * through the `format=skill` export, whose SKILL.md carries the digest.
 */
describe('provenance handed to renderings', () => {
  async function served(t: TestApp, deploymentId: string) {
    const { deployments } = t.app.services;
    // An anonymous deployment: the endpoint's own read, without a credential to make.
    const target = await deployments.loadDeploymentForEndpoint(deploymentId, null);
    return Promise.all(ADAPTERS.map((adapter) => deployments.renderableFor(target, adapter)));
  }

  test("names the author of a subscribed workflow as third party, and the owner's own workflow as theirs, for every adapter", async ({
    service: t,
    world: { authorId, theirs, mine, deploymentId },
  }) => {
    for (const workflows of await served(t, deploymentId)) {
      expect(workflows.map((w) => [w.workflowId, w.provenance])).toEqual([
        [
          mine.workflowId,
          { authorDisplayName: null, authorHandle: expect.stringMatching(/^user-[0-9a-z]{8}$/), digest: mine.digest, thirdParty: false },
        ],
        [
          theirs.workflowId,
          { authorDisplayName: 'Ada Author', authorHandle: expect.stringMatching(/^user-/), digest: theirs.digest, thirdParty: true },
        ],
      ]);
      expect(workflows[0]!.provenance.authorHandle).not.toBe(workflows[1]!.provenance.authorHandle);
      // The handle is the author's, whatever display name they choose.
      expect(workflows[1]!.provenance.authorHandle.slice('user-'.length)).toBe(
        authorId.slice(authorId.indexOf('_') + 1, authorId.indexOf('_') + 9).toLowerCase(),
      );
    }
  });

  test('keeps the pinned version’s digest after the author changes the workflow, and follows a rename of the author at once', async ({
    service: t,
    world: { author, theirs, deploymentId },
  }) => {
    const put = await t.call('PUT', `/v1/workflows/${theirs.workflowId}`, { token: author, body: { description: 'Changed words' } });
    expect(put.body.data.digest).not.toBe(theirs.digest);
    await t.graphql('mutation { setDisplayName(displayName: "Ada Lovelace") { displayName } }', {}, author);
    for (const workflows of await served(t, deploymentId)) {
      expect(workflows[1]!.provenance).toMatchObject({ authorDisplayName: 'Ada Lovelace', digest: theirs.digest, thirdParty: true });
    }
  });

  test('never shows a display name that may be an e-mail address', async ({ service: t, world: { author, deploymentId } }) => {
    await t.graphql('mutation { setDisplayName(displayName: "ada@example.com") { displayName } }', {}, author);
    for (const workflows of await served(t, deploymentId)) expect(workflows[1]!.provenance.authorDisplayName).toBeNull();
  });

  test('the format=skill export carries the digest of the version it renders', async ({ service: t, world: { owner, theirs } }) => {
    const current = (await t.call('GET', `/v1/workflows/${theirs.workflowId}`, { token: owner })).body.data;
    const res = await t.call('GET', `/v1/workflows/${theirs.workflowId}/manifest?format=skill`, { token: owner });
    expect(res.status, res.text).toBe(200);
    const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(res.text)![1]!);
    expect(front.metadata).toEqual({ version: current.currentVersion, digest: current.digest });
  });
});
