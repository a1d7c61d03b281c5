import { parse as parseYaml } from 'yaml';
import { describe, expect } from 'vitest';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';
import type { TestApp } from '../helpers/app.js';
import { serviceTest as test } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/** Workflow routes (spec 4.1, 2.3, 2.8, 9) through REST. */
describe('workflows', () => {
  const countWorkflows = (t: TestApp) => t.database.db.prisma.workflow.count();

  describe('create and read', () => {
    test('creates a private workflow at version 1.0.0 with the stored fields', async ({ service: t, alice }) => {
      const res = await t.call('POST', '/v1/workflows', {
        token: alice,
        body: {
          name: 'Ship it',
          description: 'From plan to review',
          manifest: sampleManifest(),
          category: 'delivery',
          tags: ['ci', 'review'],
        },
      });
      expect(res.status).toBe(201);
      const w = res.body.data;
      expect(w).toMatchObject({
        name: 'Ship it',
        description: 'From plan to review',
        visibility: 'private',
        category: 'delivery',
        tags: ['ci', 'review'],
        currentVersion: '1.0.0',
        allowForks: true,
        stats: { forks: 0, subscribers: 0, rating: 0, ratingCount: 0 },
        forkedFrom: null,
        manifest: sampleManifest(),
      });
      expect(w.workflowId).toMatch(/^wf_/);
      expect(new Date(w.createdAt).toISOString()).toBe(w.createdAt);
      expect(w.updatedAt).toBe(w.createdAt);
    });

    test("puts a new workflow in its owner's library as owned", async ({ service: t, alice }) => {
      const w = await createWorkflow(t, alice, { name: 'In the library' });
      const lib = await t.call('GET', '/v1/library?limit=100', { token: alice });
      const entry = lib.body.data.find((e: any) => e.workflowId === w.workflowId);
      expect(entry).toMatchObject({
        sourceType: 'owned',
        sourceUserId: expect.stringMatching(/^usr_/),
        isActive: true,
        workflowName: 'In the library',
        workflowVersion: '1.0.0',
        autoUpdate: true,
      });
      expect(entry.enabledAdapters).toEqual([...ADAPTERS]);
    });

    test('accepts the manifest as a YAML string', async ({ service: t, alice }) => {
      const yaml =
        'manifest_version: "1.0"\nname: From YAML\nintent: Check YAML input\nsteps:\n  - id: only\n    name: Only step\n    action: code_agent\n';
      const res = await t.call('POST', '/v1/workflows', { token: alice, body: { name: 'YAML one', manifest: yaml } });
      expect(res.status).toBe(201);
      expect(res.body.data.manifest.steps[0].id).toBe('only');
    });

    test("gets the owner's workflow with its manifest, and another user's only when public", async ({ service: t, alice, bob }) => {
      const priv = await createWorkflow(t, alice, { name: 'Secret' });
      const pub = await createWorkflow(t, alice, { name: 'Open', visibility: 'public' });
      const mine = await t.call('GET', `/v1/workflows/${priv.workflowId}`, { token: alice });
      expect(mine.status).toBe(200);
      expect(mine.body.data.manifest.steps).toHaveLength(4);
      const hidden = await t.call('GET', `/v1/workflows/${priv.workflowId}`, { token: bob });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('NOT_FOUND');
      expect(hidden.text).not.toContain('Secret');
      const open = await t.call('GET', `/v1/workflows/${pub.workflowId}`, { token: bob });
      expect(open.status).toBe(200);
      expect(open.body.data.name).toBe('Open');
      expect((await t.call('GET', '/v1/workflows/wf_doesnotexist', { token: alice })).status).toBe(404);
    });
  });

  describe('list', () => {
    test("lists only the caller's workflows, newest first, with opaque cursors", async ({ service: t }) => {
      const u = await t.token('lister@example.com');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1)
        ids.push((await createWorkflow(t, u, { name: `W${i}`, visibility: i % 2 ? 'public' : 'private' })).workflowId);
      const first = await t.call('GET', '/v1/workflows?limit=2', { token: u });
      expect(first.status).toBe(200);
      expect(first.body.pagination).toMatchObject({ hasMore: true, count: 2 });
      expect(first.body.data[0].manifest).toBeUndefined();
      const seen = [...first.body.data.map((w: any) => w.workflowId)];
      let cursor = first.body.pagination.nextCursor;
      while (cursor) {
        const page = await t.call('GET', `/v1/workflows?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: u });
        seen.push(...page.body.data.map((w: any) => w.workflowId));
        cursor = page.body.pagination.nextCursor;
        if (!page.body.pagination.hasMore) expect(cursor).toBeNull();
      }
      expect(seen).toEqual([...ids].reverse());
      const pub = await t.call('GET', '/v1/workflows?visibility=public', { token: u });
      expect(pub.body.data.map((w: any) => w.workflowId)).toEqual([ids[3], ids[1]]);
      expect(pub.body.pagination).toEqual({ nextCursor: null, hasMore: false, count: 2 });
      const summary = pub.body.data[0];
      for (const key of [
        'workflowId',
        'name',
        'description',
        'visibility',
        'category',
        'tags',
        'currentVersion',
        'stats',
        'createdAt',
        'updatedAt',
      ])
        expect(summary).toHaveProperty(key);
      const def = await t.call('GET', '/v1/workflows', { token: u });
      expect(def.body.pagination.count).toBe(5);
    });

    test.for([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=garbage!!', 'cursor'],
      [`cursor=${Buffer.from('["library","2020-01-01T00:00:00.000Z","x"]').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('["workflows","not a date","x"]').toString('base64url')}`, 'cursor'],
      ['visibility=secret', 'visibility'],
    ] as const)('refuses %s with 400', async ([query, field], { service: t, alice }) => {
      const res = await t.call('GET', `/v1/workflows?${query}`, { token: alice });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toContain(field);
    });
  });

  describe('update and versions', () => {
    test('keeps the version when nothing an agent sees changes, bumps patch for content and minor for shape', async ({
      service: t,
      alice,
      bob,
    }) => {
      const w = await createWorkflow(t, alice, { name: 'Versioned' });
      const put = (body: Record<string, unknown>) =>
        t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: alice, body: { name: 'Versioned', manifest: sampleManifest(), ...body } });
      const same = await put({ allowForks: false });
      expect(same.body.data).toMatchObject({ allowForks: false, currentVersion: '1.0.0' });
      const meta = await put({ name: 'Versioned (renamed)', description: 'new words', tags: ['x'] });
      expect(meta.status).toBe(200);
      expect(meta.body.data).toMatchObject({ name: 'Versioned (renamed)', description: 'new words', tags: ['x'], currentVersion: '1.0.1' });
      const patch = await put({ manifest: sampleManifest({ intent: 'A clearer intent' }) });
      expect(patch.body.data.currentVersion).toBe('1.0.2');
      const shape = sampleManifest();
      shape.steps.push({ id: 'docs', name: 'Docs', action: 'docs_agent', depends_on: ['review'] });
      const minor = await put({ manifest: shape });
      expect(minor.body.data.currentVersion).toBe('1.1.0');
      expect(minor.body.data.manifest.steps).toHaveLength(5);
      // Fields left out of the body keep their values.
      expect(minor.body.data).toMatchObject({ name: 'Versioned', description: 'new words', tags: ['x'] });

      const versions = await t.call('GET', `/v1/workflows/${w.workflowId}/versions`, { token: alice });
      expect(versions.status).toBe(200);
      expect(versions.body.data.map((v: any) => v.version)).toEqual(['1.1.0', '1.0.2', '1.0.1', '1.0.0']);
      const old = await t.call('GET', `/v1/workflows/${w.workflowId}/versions/1.0.0`, { token: alice });
      expect(old.body.data.manifest).toEqual(sampleManifest());
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}/versions/9.9.9`, { token: alice })).status).toBe(404);
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}/versions`, { token: bob })).status).toBe(404);
    });

    test('refuses updates by others: 404 for a private workflow, 403 for a public one', async ({ service: t, alice, bob }) => {
      const priv = await createWorkflow(t, alice);
      const pub = await createWorkflow(t, alice, { visibility: 'public' });
      const body = { name: 'Hijacked', manifest: sampleManifest() };
      const a = await t.call('PUT', `/v1/workflows/${priv.workflowId}`, { token: bob, body });
      expect(a.status).toBe(404);
      const b = await t.call('PUT', `/v1/workflows/${pub.workflowId}`, { token: bob, body });
      expect(b.status).toBe(403);
      expect(b.body.error.code).toBe('FORBIDDEN');
      const still = await t.call('GET', `/v1/workflows/${pub.workflowId}`, { token: alice });
      expect(still.body.data.name).toBe('Review pipeline');
    });
  });

  describe('delete', () => {
    test("deletes the owner's workflow with its versions; others get 403 or 404", async ({ service: t, alice, bob }) => {
      const priv = await createWorkflow(t, alice);
      const pub = await createWorkflow(t, alice, { visibility: 'public' });
      expect((await t.call('DELETE', `/v1/workflows/${priv.workflowId}`, { token: bob })).status).toBe(404);
      const forbidden = await t.call('DELETE', `/v1/workflows/${pub.workflowId}`, { token: bob });
      expect(forbidden.status).toBe(403);
      const res = await t.call('DELETE', `/v1/workflows/${priv.workflowId}`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { workflowId: priv.workflowId, deleted: true } });
      expect((await t.call('GET', `/v1/workflows/${priv.workflowId}`, { token: alice })).status).toBe(404);
      expect(await t.database.db.prisma.workflowVersion.count({ where: { workflowId: priv.workflowId } })).toBe(0);
      expect((await t.call('DELETE', `/v1/workflows/${priv.workflowId}`, { token: alice })).status).toBe(404);
    });
  });

  describe('export', () => {
    test('exports JSON and YAML that parse back to the same manifest', async ({ service: t, alice, bob }) => {
      const w = await createWorkflow(t, alice, { manifest: sampleManifest({ context: { repo: 'yes', language: '1.0' } }) });
      const json = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest`, { token: alice });
      expect(json.status).toBe(200);
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(json.text)).toEqual(w.manifest);
      const yaml = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=yaml`, { token: alice });
      expect(yaml.status).toBe(200);
      expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
      expect(parseYaml(yaml.text)).toEqual(w.manifest);
      const bad = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=xml`, { token: alice });
      expect(bad.status).toBe(400);
      expect((await t.call('GET', `/v1/workflows/${w.workflowId}/manifest`, { token: bob })).status).toBe(404);
    });

    test('names the allowed formats when the format is unknown', async ({ service: t, alice }) => {
      const w = await createWorkflow(t, alice);
      const bad = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=xml`, { token: alice });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
      expect(bad.body.error.message).toBe("format must be one of 'json', 'yaml', 'skill'; got 'xml'");
      expect(bad.body.error.details.allowed).toEqual(['json', 'yaml', 'skill']);
    });

    test('exports the workflow as a SKILL.md for an adapter, adapter_three by default', async ({ service: t, alice }) => {
      const w = await createWorkflow(t, alice, {
        name: 'Ship a feature',
        description: 'Plan, build and review a feature.',
        manifest: sampleManifest(),
      });
      const res = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=skill`, { token: alice });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      const front = /^---\n([\s\S]*?)\n---\n/.exec(res.text);
      expect(front).not.toBeNull();
      const meta = parseYaml(front![1]!) as Record<string, string>;
      expect(meta.name).toMatch(/^ship-a-feature-[0-9a-f]{8}$/);
      // Who wrote it, which version and digest, then the description (docs/marketplace.md, "Provenance").
      expect(meta.description).toMatch(
        /^⟦Workflow by user-[0-9a-z]{8}, the deployment's owner; version 1\.0\.0, digest sha256:[0-9a-f]{64}\.⟧ /,
      );
      expect(meta.description).toContain('Plan, build and review a feature. (workflow Ship a feature, version 1.0.0)');
      expect(res.text).toContain('Adapter `adapter_three`');
      for (const step of w.manifest.steps as { id: string }[]) expect(res.text).toContain(`\`${step.id}\``);

      const one = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=skill&adapter=adapter_one`, { token: alice });
      expect(one.status).toBe(200);
      expect(one.text).toContain('Adapter `adapter_one`');
      expect(one.text.split('\n')[1]).toBe(`name: ${meta.name}`);

      const gql = await t.graphql(
        'query($id: String!, $a: String) { workflowManifest(workflowId: $id, format: "skill", adapter: $a) { contentType body } }',
        { id: w.workflowId, a: 'adapter_two' },
        alice,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.workflowManifest.contentType).toBe('text/markdown; charset=utf-8');
      expect(gql.body.data.workflowManifest.body).toContain('Adapter `adapter_two`');
    });

    test('answers 404 for a skill of a workflow the caller cannot read, 400 for a bad adapter', async ({ service: t, alice, bob }) => {
      const w = await createWorkflow(t, alice, { visibility: 'private' });
      const hidden = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=skill`, { token: bob });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('NOT_FOUND');
      expect(hidden.text).not.toContain('Adapter');
      const gql = await t.graphql(
        'query($id: String!) { workflowManifest(workflowId: $id, format: "skill") { body } }',
        { id: w.workflowId },
        bob,
      );
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');

      const badAdapter = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=skill&adapter=adapter_nine`, { token: alice });
      expect(badAdapter.status).toBe(400);
      expect(badAdapter.body.error.message).toBe(`adapter must be one of ${ADAPTERS.map((a) => `'${a}'`).join(', ')}; got 'adapter_nine'`);
      const adapterWithYaml = await t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=yaml&adapter=adapter_one`, {
        token: alice,
      });
      expect(adapterWithYaml.status).toBe(400);
      expect(adapterWithYaml.body.error.message).toBe("adapter applies only to format 'skill'");
    });
  });

  describe('bad input stores nothing', () => {
    const withSteps = (steps: unknown) => sampleManifest({ steps });
    const cases: [string, Record<string, unknown>, string][] = [
      ['manifest not an object', { manifest: [1, 2] }, 'manifest'],
      [
        'missing name in manifest',
        {
          manifest: (() => {
            const m = sampleManifest();
            delete m.name;
            return m;
          })(),
        },
        'missing_required_field',
      ],
      [
        'missing intent',
        {
          manifest: (() => {
            const m = sampleManifest();
            delete m.intent;
            return m;
          })(),
        },
        'missing_required_field',
      ],
      [
        'missing steps',
        {
          manifest: (() => {
            const m = sampleManifest();
            delete m.steps;
            return m;
          })(),
        },
        'missing_required_field',
      ],
      ['empty steps', { manifest: withSteps([]) }, 'missing_required_field'],
      ['manifest_version 2.0', { manifest: sampleManifest({ manifest_version: '2.0' }) }, 'unsupported_manifest_version'],
      ['step id Build-Step', { manifest: withSteps([{ id: 'Build-Step', name: 'B', action: 'code_agent' }]) }, 'invalid_step_id'],
      ['step id 1abc', { manifest: withSteps([{ id: '1abc', name: 'B', action: 'code_agent' }]) }, 'invalid_step_id'],
      [
        'duplicate step id',
        {
          manifest: withSteps([
            { id: 'a', name: 'A', action: 'code_agent' },
            { id: 'a', name: 'A2', action: 'code_agent' },
          ]),
        },
        'duplicate_step_id',
      ],
      ['unknown action', { manifest: withSteps([{ id: 'a', name: 'A', action: 'teleport' }]) }, 'unknown_action'],
      [
        'depends_on a missing step',
        { manifest: withSteps([{ id: 'a', name: 'A', action: 'code_agent', depends_on: ['ghost'] }]) },
        'unknown_dependency',
      ],
      [
        'two-step cycle',
        {
          manifest: withSteps([
            { id: 'a', name: 'A', action: 'code_agent', depends_on: ['b'] },
            { id: 'b', name: 'B', action: 'code_agent', depends_on: ['a'] },
          ]),
        },
        'circular_dependency',
      ],
      [
        'three-step cycle',
        {
          manifest: withSteps([
            { id: 'a', name: 'A', action: 'code_agent', depends_on: ['c'] },
            { id: 'b', name: 'B', action: 'code_agent', depends_on: ['a'] },
            { id: 'c', name: 'C', action: 'code_agent', depends_on: ['b'] },
          ]),
        },
        'circular_dependency',
      ],
      [
        'self-dependency',
        { manifest: withSteps([{ id: 'a', name: 'A', action: 'code_agent', depends_on: ['a'] }]) },
        'circular_dependency',
      ],
      ['adapter mode not in its list', { manifest: sampleManifest({ adapters: { adapter_two: { mode: 'sub_agent' } } }) }, 'invalid_value'],
      ['steps as an object', { manifest: sampleManifest({ steps: { a: 1 } }) }, 'invalid_type'],
      [
        'retry.max_attempts as a string',
        { manifest: withSteps([{ id: 'a', name: 'A', action: 'code_agent', retry: { max_attempts: '3' } }]) },
        'invalid_type',
      ],
      ['tags as a string', { tags: 'review' }, 'tags'],
      ['name empty', { name: '   ' }, 'name'],
      ['name too long', { name: 'x'.repeat(101) }, 'name'],
      ['name missing', { name: undefined }, 'name'],
      ['name a number', { name: 42 }, 'name'],
      ['visibility secret', { visibility: 'secret' }, 'visibility'],
      ['unknown body field', { colour: 'blue' }, 'colour'],
    ];

    test.for(cases)('%s → 400 VALIDATION_ERROR', async ([, override, expected], { service: t, alice }) => {
      const before = await countWorkflows(t);
      const body = { name: 'Bad one', manifest: sampleManifest(), ...override };
      const res = await t.call('POST', '/v1/workflows', { token: alice, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body.error)).toContain(expected);
      expect(await countWorkflows(t)).toBe(before);
    });

    test('reports the two steps of a cycle by name', async ({ service: t, alice }) => {
      const res = await t.call('POST', '/v1/workflows', {
        token: alice,
        body: {
          name: 'Cyclic',
          manifest: sampleManifest({
            steps: [
              { id: 'build', name: 'B', action: 'code_agent', depends_on: ['test'] },
              { id: 'test', name: 'T', action: 'test_agent', depends_on: ['build'] },
            ],
          }),
        },
      });
      const cycle = res.body.error.details.manifestErrors.find((e: any) => e.code === 'circular_dependency');
      expect(cycle.message).toMatch(/build/);
      expect(cycle.message).toMatch(/test/);
    });

    test('refuses a bad update and leaves the workflow as it was', async ({ service: t, alice }) => {
      const w = await createWorkflow(t, alice);
      const res = await t.call('PUT', `/v1/workflows/${w.workflowId}`, {
        token: alice,
        body: { name: 'Changed', manifest: sampleManifest({ steps: [] }) },
      });
      expect(res.status).toBe(400);
      const after = await t.call('GET', `/v1/workflows/${w.workflowId}`, { token: alice });
      expect(after.body.data).toMatchObject({ name: 'Review pipeline', currentVersion: '1.0.0' });
    });
  });

  describe('the manifest schema and the validation route', () => {
    test('serves the JSON Schema without a token at the $schema address', async ({ service: t }) => {
      const res = await t.call('GET', '/v1/schemas/manifest/v1.0');
      expect(res.status).toBe(200);
      expect(res.body.$schema).toMatch(/draft-07/);
      expect(res.body.$id).toBe('http://127.0.0.1:4000/v1/schemas/manifest/v1.0');
    });

    test('validates without storing, JSON or YAML', async ({ service: t, alice }) => {
      const before = await countWorkflows(t);
      const ok = await t.call('POST', '/v1/manifests/validate', { token: alice, body: { manifest: sampleManifest() } });
      expect(ok.body).toEqual({ success: true, data: { valid: true, errors: [] } });
      const bad = await t.call('POST', '/v1/manifests/validate', {
        token: alice,
        body: { manifest: sampleManifest({ steps: [{ id: 'X', name: 'x', action: 'nope' }] }) },
      });
      expect(bad.status).toBe(200);
      expect(bad.body.data.valid).toBe(false);
      expect(bad.body.data.errors.map((e: any) => e.code).sort()).toEqual(['invalid_step_id', 'unknown_action']);
      const yaml = await t.call('POST', '/v1/manifests/validate', {
        token: alice,
        body: { manifest: 'manifest_version: "1.0"\nname: y\nintent: y\nsteps: []\n' },
      });
      expect(yaml.body.data.errors[0].code).toBe('missing_required_field');
      const broken = await t.call('POST', '/v1/manifests/validate', { token: alice, body: { manifest: 'a: [unclosed' } });
      expect(broken.status).toBe(400);
      expect(await countWorkflows(t)).toBe(before);
    });
  });
});
