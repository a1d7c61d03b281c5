import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { parse as parseYaml } from 'yaml';

/** A manifest comes back exactly as written: same keys, same order, same values, everywhere. */

/** Keys in an order no sorting would produce (PostgreSQL's jsonb sorts by length, then bytes). */
function unusualManifest(intent = 'Keep the order of every key') {
  return {
    steps: [
      { depends_on: [], name: 'Plan it', id: 'plan', action: 'planning_agent', parameters: { zeta: 1, alpha: { yy: true, b: null } } },
      { retry: { backoff: 'linear', max_attempts: 3 }, action: 'code_agent', id: 'code', name: 'Code it', depends_on: ['plan'] },
    ],
    intent,
    name: 'Ordered manifest',
    context: { test_framework: 'vitest', zz_custom: 'x', language: 'typescript', a: 'first?' },
    manifest_version: '1.0',
    adapters: {
      adapter_three: { mode: 'direct' },
      adapter_one: { config: { max_parallel_agents: 2, spawn_agents_per_step: true }, mode: 'sub_agent' },
    },
  };
}

/** The same content with every object's keys reversed. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reversed(v)]),
    );
  return value;
}

describe('manifests as written', () => {
  /** The manifest's own JSON text inside an answer's text: byte for byte. */
  const inText = (manifest: unknown) => `"manifest":${JSON.stringify(manifest)}`;

  serviceTest(
    'round-trips byte for byte through create, GET, versions, GraphQL and the JSON export; YAML keeps the order',
    async ({ service: t, alice: owner, bob: other }) => {
      const manifest = unusualManifest();
      const created = await t.call('POST', '/v1/workflows', { token: owner, body: { name: 'Ordered', manifest, visibility: 'public' } });
      expect(created.status, created.text).toBe(201);
      expect(created.text).toContain(inText(manifest));
      const id = created.body.data.workflowId;

      expect((await t.call('GET', `/v1/workflows/${id}`, { token: owner })).text).toContain(inText(manifest));
      expect((await t.call('GET', `/v1/workflows/${id}`, { token: other })).text).toContain(inText(manifest));
      expect((await t.call('GET', `/v1/workflows/${id}/versions/1.0.0`, { token: owner })).text).toContain(inText(manifest));
      const gql = await t.graphql(
        'query($id: String!) { workflow(workflowId: $id) { manifest } workflowVersions(workflowId: $id) { data { manifest } } }',
        { id },
        owner,
      );
      expect(JSON.stringify(gql.body.data.workflow.manifest)).toBe(JSON.stringify(manifest));
      expect(JSON.stringify(gql.body.data.workflowVersions.data[0].manifest)).toBe(JSON.stringify(manifest));

      const json = await t.call('GET', `/v1/workflows/${id}/manifest?format=json`, { token: owner });
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(json.text).toBe(`${JSON.stringify(manifest, null, 2)}\n`);
      const yaml = await t.call('GET', `/v1/workflows/${id}/manifest?format=yaml`, { token: owner });
      expect(yaml.text.split('\n')[0]).toBe('steps:');
      expect(JSON.stringify(parseYaml(yaml.text))).toBe(JSON.stringify(manifest));

      // A fork starts from the text as written.
      const fork = await t.call('POST', `/v1/workflows/${id}/fork`, { token: other, body: {} });
      expect(fork.status).toBe(201);
      expect(fork.text).toContain(inText(manifest));
    },
  );

  serviceTest('keeps the order of a manifest sent as YAML', async ({ service: t, alice: owner }) => {
    const yamlText = `steps:\n  - id: plan\n    name: Plan it\n    action: planning_agent\nintent: Sent as YAML\nname: From YAML\nmanifest_version: "1.0"\n`;
    const created = await t.call('POST', '/v1/workflows', { token: owner, body: { name: 'YAML order', manifest: yamlText } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body.data.manifest)).toEqual(['steps', 'intent', 'name', 'manifest_version']);
  });

  /** YAML as a person writes it: comments, a flow list, quoting and blank lines no writer would reproduce. */
  const WRITTEN_YAML = `# Nightly upkeep, kept as written
manifest_version: '1.0'   # quoted with single quotes
name: Upkeep as written
intent: >-
  Plan, then code
steps:
  - { id: plan, name: Plan it, action: planning_agent }

  - id: code
    name: Code it
    action: code_agent
    depends_on: [plan]   # a flow list stays a flow list
`;

  const yamlOf = async (t: TestApp, id: string, token: string) => {
    const rest = await t.call('GET', `/v1/workflows/${id}/manifest?format=yaml`, { token });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('content-type')).toMatch(/^application\/yaml/);
    const gql = await t.graphql(
      'query($id: String!) { workflowManifest(workflowId: $id, format: "yaml") { contentType body } }',
      { id },
      token,
    );
    expect(gql.body.errors).toBeUndefined();
    // The same text through both faces.
    expect(gql.body.data.workflowManifest.body).toBe(rest.text);
    return rest.text;
  };

  serviceTest(
    'keeps YAML text as written (comments, flow lists, quoting) and returns it through REST and GraphQL',
    async ({ service: t, alice: owner, bob: other }) => {
      const created = await t.call('POST', '/v1/workflows', {
        token: owner,
        body: { name: 'Written YAML', manifest: WRITTEN_YAML, visibility: 'public' },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.workflowId;
      // The data is the manifest read from the YAML.
      expect(created.body.data.manifest).toEqual(parseYaml(WRITTEN_YAML));
      expect(await yamlOf(t, id, owner)).toBe(WRITTEN_YAML);
      // Anyone who may read it sees the same text.
      expect(await yamlOf(t, id, other)).toBe(WRITTEN_YAML);
      // JSON stays JSON written from the data.
      const json = await t.call('GET', `/v1/workflows/${id}/manifest?format=json`, { token: owner });
      expect(JSON.parse(json.text)).toEqual(parseYaml(WRITTEN_YAML));

      // An update of another field keeps the text (in the version it records, too).
      const renamed = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { description: 'Now described' } });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.data.currentVersion).toBe('1.0.1');
      expect(await yamlOf(t, id, owner)).toBe(WRITTEN_YAML);

      // Only comments changed (through GraphQL): no new version, and the new text is shown.
      const recommented = WRITTEN_YAML.replace('# Nightly upkeep, kept as written', '# Nightly upkeep, comment edited');
      const gqlUpdate = await t.graphql(
        'mutation($id: String!, $m: JSON!) { updateWorkflow(workflowId: $id, manifest: $m) { currentVersion } }',
        { id, m: recommented },
        owner,
      );
      expect(gqlUpdate.body.errors).toBeUndefined();
      expect(gqlUpdate.body.data.updateWorkflow.currentVersion).toBe('1.0.1');
      expect(await yamlOf(t, id, owner)).toBe(recommented);

      // A fork starts from the text as written.
      const fork = await t.call('POST', `/v1/workflows/${id}/fork`, { token: other, body: {} });
      expect(fork.status, fork.text).toBe(201);
      expect(await yamlOf(t, fork.body.data.workflowId, other)).toBe(recommented);

      // A changed manifest in YAML makes a version and is kept as written too.
      const changed = recommented.replace('Plan, then code', 'Plan, then code, then rest');
      const put = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { manifest: changed } });
      expect(put.status, put.text).toBe(200);
      expect(put.body.data.currentVersion).toBe('1.0.2');
      expect(await yamlOf(t, id, owner)).toBe(changed);

      // Sent as JSON, the manifest has no YAML text: format=yaml writes YAML from the data, without the old comments.
      const asJson = parseYaml(changed);
      const putJson = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { manifest: asJson } });
      expect(putJson.status, putJson.text).toBe(200);
      const generated = await yamlOf(t, id, owner);
      expect(generated).not.toContain('#');
      expect(generated).toContain('depends_on:\n      - plan');
      expect(parseYaml(generated)).toEqual(asJson);
    },
  );

  serviceTest(
    'refuses YAML text larger than the kept size, and takes a JSON text sent as a string as JSON',
    async ({ service: t, alice: owner }) => {
      const padded = `${WRITTEN_YAML}${`# ${'x'.repeat(1000)}\n`.repeat(263)}`;
      const refused = await t.call('POST', '/v1/workflows', { token: owner, body: { name: 'Too long', manifest: padded } });
      expect(refused.status).toBe(400);
      // Refused before it is read (docs/manifest.md, "YAML").
      expect(refused.body.error.message).toMatch(/^the manifest is \d+ bytes of text; at most 262144 are read$/);

      const jsonText = JSON.stringify(parseYaml(WRITTEN_YAML));
      const created = await t.call('POST', '/v1/workflows', { token: owner, body: { name: 'JSON text', manifest: jsonText } });
      expect(created.status, created.text).toBe(201);
      const yaml = await yamlOf(t, created.body.data.workflowId, owner);
      expect(yaml).not.toBe(jsonText);
      expect(parseYaml(yaml)).toEqual(JSON.parse(jsonText));
    },
  );

  serviceTest(
    "a new key order alone records no version, and every answer (the tool endpoint's cache included) shows the new order",
    async ({ service: t, alice: owner }) => {
      const manifest = unusualManifest('Reordered later');
      const created = await t.call('POST', '/v1/workflows', { token: owner, body: { name: 'Reordered', manifest } });
      const id = created.body.data.workflowId;
      const dep = await t.call('POST', '/v1/deployments', { token: owner, body: { name: 'Order', workflowIds: [id] } });
      expect(dep.status).toBe(201);

      const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1/v1/mcp/${dep.body.data.deploymentId}`), {
        fetch: (url: string | URL, init?: RequestInit) => t.app.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${owner}` } },
      });
      const client = new Client({ name: 'order-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const uri = `workflow://${id}/manifest`;
        const first = await client.readResource({ uri });
        expect((first.contents[0] as { text: string }).text).toBe(`${JSON.stringify(manifest, null, 2)}\n`);

        const again = reversed(manifest);
        expect(JSON.stringify(again)).not.toBe(JSON.stringify(manifest));
        const put = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { manifest: again } });
        expect(put.status).toBe(200);
        expect(put.body.data.currentVersion).toBe('1.0.0');
        expect(put.text).toContain(inText(again));
        expect((await t.call('GET', `/v1/workflows/${id}`, { token: owner })).text).toContain(inText(again));
        expect((await t.call('GET', `/v1/workflows/${id}/versions/1.0.0`, { token: owner })).text).toContain(inText(again));
        expect((await t.call('GET', `/v1/workflows/${id}/versions`, { token: owner })).body.data.map((v: any) => v.version)).toEqual([
          '1.0.0',
        ]);
        expect((await t.call('GET', `/v1/workflows/${id}/manifest`, { token: owner })).text).toBe(`${JSON.stringify(again, null, 2)}\n`);

        const second = await client.readResource({ uri });
        expect((second.contents[0] as { text: string }).text).toBe(`${JSON.stringify(again, null, 2)}\n`);
      } finally {
        await client.close();
      }
    },
  );
});
