import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CLIENT_ADAPTERS, connectClient, MODERN, seedEndpointOwner } from '../helpers/mcp.js';
import { seedWorkflow } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

/**
 * Every workflow a deployment offers is also an Agent Skill (`skill://<name>/SKILL.md`), served
 * through the SDK's skills extension and read here with the v2 client's SkillsClient, on
 * 2026-07-28 and in the 2025 era, for each adapter.
 */
function frontMatter(text: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(match).not.toBeNull();
  return parseYaml(match![1]!) as Record<string, unknown>;
}

/** The endpoint owner's deployment "Everything" (their workflow and the subscribed one), and "Notes" of a workflow it does not offer. */
const test = serviceTest.extend<{ world: { token: string; deploymentId: string; otherDeploymentId: string } }>({
  world: [
    async ({ service: t }, use) => {
      const owner = await seedEndpointOwner(t);
      const { token, owned, subscribed } = owner;
      const notOffered = await seedWorkflow(t, owner.userId, { name: 'Release notes', description: 'Writes release notes.' });
      const deploymentId = await owner.deploy({ name: 'Everything', workflowIds: [owned, subscribed] });
      const otherDeploymentId = await owner.deploy({ name: 'Notes', workflowIds: [notOffered] });
      await use({ token, deploymentId, otherDeploymentId });
    },
    { scope: 'file' },
  ],
});

describe('workflows as skills over MCP', () => {
  for (const era of [MODERN, null] as const) {
    const label = era ?? '2025-11-25 (initialize)';
    for (const { client: clientName, adapter } of CLIENT_ADAPTERS) {
      test(`${label}: ${clientName} lists and reads a SKILL.md per workflow, written for ${adapter}`, async ({
        service: t,
        world: { token, deploymentId },
      }) => {
        const client = await connectClient(t.app, deploymentId, clientName, { token, pin: era });
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
          // Who wrote it, the version and its digest lead; then the workflow's own description.
          expect(feature!.frontmatter.description).toMatch(
            /^⟦Workflow by user-[0-9a-z]{8}, the deployment's owner; version 1\.0\.0, digest sha256:[0-9a-f]{64}\.⟧ /,
          );
          expect(feature!.frontmatter.description).toContain('Ships a feature. (workflow Feature pipeline, version 1.0.0)');

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

    test(`${label}: a skill of an unknown or not-offered workflow is refused clearly`, async ({
      service: t,
      world: { token, deploymentId, otherDeploymentId },
    }) => {
      const client = await connectClient(t.app, deploymentId, 'generic-agent', { token, pin: era });
      try {
        const skills = new SkillsClient(client);
        // A skill that exists on another deployment of the same owner is not served here.
        const other = await connectClient(t.app, otherDeploymentId, 'generic-agent', { token, pin: era });
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

  test('follows the adapter query parameter', async ({ service: t, world: { token, deploymentId } }) => {
    const client = await connectClient(t.app, deploymentId, 'claude-code', { token, pin: MODERN, query: '?adapter=adapter_two' });
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
