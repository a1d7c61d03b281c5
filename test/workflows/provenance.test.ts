import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPlan, userIdOf } from '../helpers/seed.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * The provenance every rendering of a workflow is handed (the renderers print it): the author's
 * display name (never an e-mail address) and stable handle, the digest of the version served, and
 * whether the author is someone other than the person served. Read through the services the MCP
 * endpoint, the install catalogs and the skills use (one statement for the whole bundle), and
 * through the `format=skill` export, whose SKILL.md carries the digest.
 */
describe('provenance handed to renderings', () => {
  let t: TestApp;
  let author: string;
  let authorId: string;
  let owner: string;
  let ownerId: string;
  let theirs: Record<string, any>;
  let mine: Record<string, any>;
  let deploymentId: string;

  beforeAll(async () => {
    t = await startTestApp();
    author = await t.token('prov-author@example.com');
    owner = await t.token('prov-owner@example.com');
    authorId = await userIdOf(t, author);
    ownerId = await userIdOf(t, owner);
    await seedPlan(t, ownerId, 'team');
    const named = await t.graphql('mutation { setDisplayName(displayName: "Ada Author") { displayName } }', {}, author);
    expect(named.body.errors).toBeUndefined();
    theirs = await createWorkflow(t, author, { name: 'Their review', visibility: 'public' });
    mine = await createWorkflow(t, owner, { name: 'My review' });
    expect((await t.call('POST', `/v1/library/${theirs.workflowId}`, { token: owner, body: { autoUpdate: false } })).status).toBe(201);
    const dep = await t.call('POST', '/v1/deployments', {
      token: owner,
      body: { name: 'Both', workflowIds: [mine.workflowId, theirs.workflowId], allowAnonymous: true },
    });
    expect(dep.status, dep.text).toBe(201);
    deploymentId = dep.body.data.deploymentId;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function served() {
    const { deployments } = t.app.services;
    // An anonymous deployment: the endpoint's own read, without a credential to make.
    const target = await deployments.loadDeploymentForEndpoint(deploymentId, null);
    return Promise.all(ADAPTERS.map((adapter) => deployments.renderableFor(target, adapter)));
  }

  it("names the author of a subscribed workflow as third party, and the owner's own workflow as theirs, for every adapter", async () => {
    for (const workflows of await served()) {
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

  it('keeps the pinned version’s digest after the author changes the workflow, and follows a rename of the author at once', async () => {
    const put = await t.call('PUT', `/v1/workflows/${theirs.workflowId}`, { token: author, body: { description: 'Changed words' } });
    expect(put.body.data.digest).not.toBe(theirs.digest);
    await t.graphql('mutation { setDisplayName(displayName: "Ada Lovelace") { displayName } }', {}, author);
    for (const workflows of await served()) {
      expect(workflows[1]!.provenance).toMatchObject({ authorDisplayName: 'Ada Lovelace', digest: theirs.digest, thirdParty: true });
    }
  });

  it('never shows a display name that may be an e-mail address', async () => {
    await t.graphql('mutation { setDisplayName(displayName: "ada@example.com") { displayName } }', {}, author);
    for (const workflows of await served()) expect(workflows[1]!.provenance.authorDisplayName).toBeNull();
  });

  it('the format=skill export carries the digest of the version it renders', async () => {
    const current = (await t.call('GET', `/v1/workflows/${theirs.workflowId}`, { token: owner })).body.data;
    const res = await t.call('GET', `/v1/workflows/${theirs.workflowId}/manifest?format=skill`, { token: owner });
    expect(res.status, res.text).toBe(200);
    const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(res.text)![1]!);
    expect(front.metadata).toEqual({ version: current.currentVersion, digest: current.digest });
  });
});
