import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect } from 'vitest';
import { ADAPTERS } from '../../src/manifest/types.js';
import { CLIENT_ADAPTERS, connectClient } from '../helpers/mcp.js';
import { seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';
import { ALL_HOSTILE_TEXT, expectInert } from '../fixtures/hostile-text.js';
import { readZip } from '../install/zip-reader.js';

/**
 * The whole hostile corpus in one public workflow of another author, bundled into a subscriber's
 * deployment and read through every face that serves it to agents: the tool endpoint (tools,
 * prompts and skill:// resources, for each adapter), the manifest export as a SKILL.md, and the
 * install catalogs (skills index and its files, the plugin marketplace and its archive).
 */

const manifest = {
  manifest_version: '1.0',
  name: 'hostile',
  intent: `Triage the bug.\n${ALL_HOSTILE_TEXT}`,
  context: { notes: ALL_HOSTILE_TEXT },
  steps: [
    { id: 'plan', name: ALL_HOSTILE_TEXT, action: 'planning_agent', parameters: { note: ALL_HOSTILE_TEXT } },
    { id: 'fix', name: `Fix ${ALL_HOSTILE_TEXT}`, action: 'code_agent', depends_on: ['plan'], condition: ALL_HOSTILE_TEXT },
  ],
  outputs: { type: ALL_HOSTILE_TEXT, expected_files: [ALL_HOSTILE_TEXT] },
};

/** The subscriber (team plan), mallory's hostile public workflow in their library, and their deployment of it. */
const test = serviceTest.extend<{ world: { token: string; workflowId: string; deploymentId: string } }>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('subscriber@example.com');
      const userId = await userIdOf(t, token);
      await seedPlan(t, userId, 'team');
      const authorId = await userIdOf(t, await t.token('mallory@example.com'));
      const workflowId = await seedWorkflow(t, authorId, {
        name: `Triage ${ALL_HOSTILE_TEXT}`.slice(0, 100),
        description: ALL_HOSTILE_TEXT,
        visibility: 'public',
        versions: [{ version: '1.0.0', manifest }],
      });
      await seedSubscription(t, userId, workflowId);
      const res = await t.call('POST', '/v1/deployments', { token, body: { name: 'Team tools', workflowIds: [workflowId] } });
      expect(res.status, res.text).toBe(201);
      await use({ token, workflowId, deploymentId: res.body.data.deploymentId });
    },
    { scope: 'file' },
  ],
});

describe('a hostile public workflow, through every face that serves it to agents', () => {
  for (const { client: clientName, adapter } of CLIENT_ADAPTERS) {
    test(`the tool endpoint (${adapter}): tools, calls, prompts, skill:// and workflow:// resources are inert`, async ({
      service: t,
      world: { token, deploymentId },
    }) => {
      const client = await connectClient(t.app, deploymentId, clientName, { token });
      try {
        const { tools } = await client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        for (const tool of tools) {
          expectInert(JSON.stringify(tool), `tools/list ${tool.name}`);
          expectInert(tool.description ?? '', `tools/list ${tool.name} description`);
          const result = await client.callTool({ name: tool.name, arguments: { task: ALL_HOSTILE_TEXT.slice(0, 2000) } });
          expect(result.isError).toBeFalsy();
          for (const part of result.content as { text: string }[]) expectInert(part.text, `tools/call ${tool.name}`);
        }
        const { prompts } = await client.listPrompts();
        for (const prompt of prompts) {
          expectInert(prompt.description ?? '', `prompts/list ${prompt.name}`);
          const got = await client.getPrompt({ name: prompt.name, arguments: {} });
          for (const message of got.messages) expectInert((message.content as { text: string }).text, `prompts/get ${prompt.name}`);
        }
        const { resources } = await client.listResources();
        const skillResources = resources.filter((r) => r.uri.startsWith('skill://'));
        expect(skillResources).toHaveLength(1);
        for (const resource of skillResources) expectInert(JSON.stringify(resource), `resources/list ${resource.uri}`);
        // The workflow:// manifest resources: their listing and their contents.
        const manifestResources = resources.filter((r) => r.uri.startsWith('workflow://'));
        expect(manifestResources).toHaveLength(1);
        for (const resource of manifestResources) {
          expectInert(JSON.stringify(resource), `resources/list ${resource.uri}`);
          const read = await client.readResource({ uri: resource.uri });
          for (const content of read.contents as { text: string }[]) expectInert(content.text, `resources/read ${resource.uri}`);
        }
        const skills = new SkillsClient(client);
        const listing = await skills.list();
        expect(listing.skills).toHaveLength(1);
        const file = await skills.read(listing.skills[0]!);
        expect(file.text).toContain('# Workflow: Triage');
        expectInert(file.text!, `skill:// ${adapter}`);
        expectInert(listing.skills[0]!.frontmatter.description, `skill:// ${adapter} description`);
      } finally {
        await client.close();
      }
    });
  }

  test('the manifest export: GET /v1/workflows/:id/manifest?format=skill is inert for every adapter', async ({
    service: t,
    world: { token, workflowId },
  }) => {
    for (const adapter of ADAPTERS) {
      const res = await t.call('GET', `/v1/workflows/${workflowId}/manifest?format=skill&adapter=${adapter}`, { token });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toContain('# Workflow: Triage');
      expectInert(res.text, `manifest?format=skill&adapter=${adapter}`);
    }
  });

  test('the install catalogs: the skills index and its files, the marketplace and its plugin archive are inert', async ({
    service: t,
    world: { token, deploymentId },
  }) => {
    const made = await t.call('POST', `/v1/deployments/${deploymentId}/install/key`, { token });
    expect(made.status, made.text).toBe(201);
    const install = made.body.data.install as { skillsIndexUrl: string; claudeMarketplaceUrl: string };
    const get = async (url: string) => {
      const response = await t.app.fetch(new Request(`http://127.0.0.1${new URL(url).pathname}`));
      expect(response.status, url).toBe(200);
      return response;
    };
    const index = (await (await get(install.skillsIndexUrl)).json()) as { skills: { url: string; description: string }[] };
    expect(index.skills).toHaveLength(1);
    for (const skill of index.skills) {
      expectInert(skill.description, 'skills index description');
      const text = await (await get(new URL(skill.url, install.skillsIndexUrl).href)).text();
      expect(text).toContain('# Workflow: Triage');
      expectInert(text, `skills index ${skill.url}`);
    }
    const marketplace = (await (await get(install.claudeMarketplaceUrl)).json()) as {
      plugins: { description: string; source: { url: string } }[];
    };
    for (const plugin of marketplace.plugins) {
      expectInert(plugin.description, 'marketplace plugin description');
      const zip = Buffer.from(await (await get(plugin.source.url)).arrayBuffer());
      const files = readZip(zip);
      const skillFiles = [...files].filter(([path]) => path.endsWith('SKILL.md'));
      expect(skillFiles).toHaveLength(1);
      for (const [path, bytes] of skillFiles) expectInert(bytes.toString('utf8'), `plugin archive ${path}`);
      const pluginJson = JSON.parse(files.get('.claude-plugin/plugin.json')!.toString('utf8')) as { description: string };
      expectInert(pluginJson.description, 'plugin.json description');
    }
  });
});
