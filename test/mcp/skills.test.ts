import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { App } from '../../src/app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';

/**
 * Every workflow a deployment offers is also an Agent Skill (`skill://<name>/SKILL.md`), served
 * through the SDK's skills extension and read here with the v2 client's SkillsClient, on
 * 2026-07-28 and in the 2025 era, for each adapter.
 */
const MODERN = '2026-07-28';

async function connect(app: App, deploymentId: string, clientName: string, token: string, pin: string | null, query = '') {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${deploymentId}${query}`), {
    fetch: (url: string | URL, init?: RequestInit) => app.fetch(new Request(url, init)),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: clientName, version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  await client.connect(transport);
  return client;
}

function frontMatter(text: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(match).not.toBeNull();
  return parseYaml(match![1]!) as Record<string, unknown>;
}

describe('workflows as skills over MCP', () => {
  let t: TestApp;
  let token: string;
  let deploymentId: string;
  let otherDeploymentId: string;
  let owned: string;
  let subscribed: string;
  let notOffered: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token('owner@example.com');
    const userId = await userIdOf(t, token);
    await seedPlan(t, userId, 'team');
    owned = await seedWorkflow(t, userId, { name: 'Feature pipeline', description: 'Ships a feature.' });
    notOffered = await seedWorkflow(t, userId, { name: 'Release notes', description: 'Writes release notes.' });
    const authorTok = await t.token('author@example.com');
    const authorId = await userIdOf(t, authorTok);
    subscribed = await seedWorkflow(t, authorId, {
      name: 'Bug triage',
      visibility: 'public',
      versions: [{ version: '3.1.0', manifest: seedManifest('triage') }],
    });
    await seedSubscription(t, userId, subscribed);
    const create = async (body: Record<string, unknown>) =>
      (await t.call('POST', '/v1/deployments', { token, body })).body.data.deploymentId as string;
    deploymentId = await create({ name: 'Everything', workflowIds: [owned, subscribed] });
    otherDeploymentId = await create({ name: 'Notes', workflowIds: [notOffered] });
  });
  afterAll(async () => {
    await t?.close();
  });

  const cases = [
    { client: 'claude-code', adapter: 'adapter_one' },
    { client: 'Cursor', adapter: 'adapter_two' },
    { client: 'generic-agent', adapter: 'adapter_three' },
  ] as const;

  for (const era of [MODERN, null] as const) {
    const label = era ?? '2025-11-25 (initialize)';
    for (const { client: clientName, adapter } of cases) {
      it(`${label}: ${clientName} lists and reads a SKILL.md per workflow, written for ${adapter}`, async () => {
        const client = await connect(t.app, deploymentId, clientName, token, era);
        try {
          const skills = new SkillsClient(client);
          expect(skills.supported).toBe(true);
          const listing = await skills.list();
          expect(listing.invalid).toEqual([]);
          expect(listing.skills.map((s) => s.frontmatter.name)).toEqual([
            expect.stringMatching(/^feature-pipeline-[0-9a-f]{8}$/),
            expect.stringMatching(/^bug-triage-[0-9a-f]{8}$/),
          ]);
          const [feature, triage] = listing.skills;
          expect(feature!.uri).toBe(`skill://${feature!.frontmatter.name}/SKILL.md`);
          expect(feature!.frontmatter.description).toBe('Ships a feature. (workflow Feature pipeline, version 1.0.0)');

          const file = await skills.read(triage!);
          expect(file.verified).toBe(true);
          expect(file.text).toBeDefined();
          expect(frontMatter(file.text!)).toEqual(triage!.frontmatter);
          expect(file.text).toContain('# Workflow: Bug triage (version 3.1.0)');
          expect(file.text).toContain(`Adapter \`${adapter}\``);

          // The skill is the plan the workflow's tool returns for the same adapter.
          const { tools } = await client.listTools();
          const tool = tools.find((x) => x.name.startsWith('bug_triage_') && !x.name.includes('__'))!;
          const plan = ((await client.callTool({ name: tool.name, arguments: {} })).content as { text: string }[])[0]!.text;
          expect(file.text!.endsWith(plan)).toBe(true);

          // The same file as a plain resource.
          const read = await client.readResource({ uri: triage!.uri });
          expect(read.contents[0]).toMatchObject({ uri: triage!.uri, mimeType: 'text/markdown', text: file.text });

          const got = await skills.get(feature!.uri);
          expect(got.skill.frontmatter).toEqual(feature!.frontmatter);
        } finally {
          await client.close();
        }
      });
    }

    it(`${label}: a skill of an unknown or not-offered workflow is refused clearly`, async () => {
      const client = await connect(t.app, deploymentId, 'generic-agent', token, era);
      try {
        const skills = new SkillsClient(client);
        // A skill that exists on another deployment of the same owner is not served here.
        const other = await connect(t.app, otherDeploymentId, 'generic-agent', token, era);
        let offeredElsewhere: string;
        try {
          offeredElsewhere = (await new SkillsClient(other).list()).skills[0]!.uri;
        } finally {
          await other.close();
        }
        for (const uri of ['skill://no-such-workflow-00000000/SKILL.md', offeredElsewhere]) {
          const attempts: [() => Promise<unknown>, string][] = [
            [() => skills.get(uri), `No skill is served at ${uri}`],
            [() => client.readResource({ uri }), `Resource not found: ${uri}`],
          ];
          for (const [attempt, message] of attempts) {
            const error = await attempt().then(
              () => null,
              (e: unknown) => e as { code?: number; message: string },
            );
            expect(error).not.toBeNull();
            expect(error!.code).toBe(-32602);
            expect(error!.message).toContain(message);
          }
        }
      } finally {
        await client.close();
      }
    });
  }

  it('follows the adapter query parameter', async () => {
    const client = await connect(t.app, deploymentId, 'claude-code', token, MODERN, '?adapter=adapter_two');
    try {
      const skills = new SkillsClient(client);
      const { skills: listed } = await skills.list();
      const file = await skills.read(listed[0]!);
      expect(file.text).toContain('Adapter `adapter_two`');
    } finally {
      await client.close();
    }
  });
});
