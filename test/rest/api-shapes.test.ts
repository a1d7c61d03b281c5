import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * One form for every answer of a kind: absent values are null (never a missing key) and the
 * OpenAPI document says so; every input error lists its fields the same way; every DELETE
 * answers deleted: true.
 */

type Schema = Record<string, any>;
const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Schema;
const schemas = committed.components.schemas as Record<string, Schema>;

describe('null rather than a missing key, stated in the OpenAPI document', () => {
  const nullable = (schema: Schema) =>
    (Array.isArray(schema.type) && schema.type.includes('null')) ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some((s: Schema) => s.type === 'null'));

  it.each([
    ['Pagination', 'nextCursor'],
    ['Deployment', 'description'],
    ['DeploymentUsageSummary', 'lastConnectedAt'],
    ['BillingSubscription', 'customerId'],
    ['BillingSubscription', 'subscriptionId'],
    ['BillingSubscription', 'currentPeriodStart'],
    ['BillingSubscription', 'currentPeriodEnd'],
  ])('%s.%s is a required key whose type admits null', (name, field) => {
    const schema = schemas[name]!;
    expect(schema.required).toContain(field);
    expect(nullable(schema.properties[field]), JSON.stringify(schema.properties[field])).toBe(true);
  });

  it('uses OpenAPI 3.1 forms only: no 3.0 `nullable` keyword, and every answer object lists all its keys as required', () => {
    expect(committed.openapi).toMatch(/^3\.1\./);
    expect(JSON.stringify(committed)).not.toContain('"nullable"');
    for (const [name, schema] of Object.entries(schemas)) {
      if (name === 'ErrorEnvelope' || !schema.properties || name.endsWith('Input')) continue;
      expect([...(schema.required ?? [])].sort(), name).toEqual(Object.keys(schema.properties).sort());
    }
  });

  serviceTest('answers null for those fields, with the key present', async ({ service: t, alice: token }) => {
    const w = await createWorkflow(t, token);
    const dep = await t.call('POST', '/v1/deployments', { token, body: { name: 'Shapes', workflowIds: [w.workflowId] } });
    expect(dep.status).toBe(201);
    const got = await t.call('GET', `/v1/deployments/${dep.body.data.deploymentId}`, { token });
    expect(got.body.data).toHaveProperty('description', null);
    expect(got.body.data.usage).toHaveProperty('lastConnectedAt', null);
    const list = await t.call('GET', '/v1/deployments', { token });
    expect(list.body.pagination).toHaveProperty('nextCursor', null);
    const billing = await t.call('GET', '/v1/billing/subscription', { token });
    for (const field of ['customerId', 'subscriptionId', 'currentPeriodStart', 'currentPeriodEnd'])
      expect(billing.body.data).toHaveProperty(field, null);
  });

  serviceTest('gives every input error the same details shape: fields: [{ field, message }]', async ({ service: t, alice: token }) => {
    const w = await createWorkflow(t, token);
    const cases: [string, Promise<any>, string][] = [
      ['a query argument of the wrong type', t.call('GET', '/v1/workflows?limit=abc', { token }), 'limit'],
      ['a page size out of range', t.call('GET', '/v1/workflows?limit=1000', { token }), 'limit'],
      ['a cursor that does not decode', t.call('GET', '/v1/workflows?cursor=garbage', { token }), 'cursor'],
      ['an unknown export format', t.call('GET', `/v1/workflows/${w.workflowId}/manifest?format=xml`, { token }), 'format'],
      ['a body that is not JSON', t.call('POST', '/v1/workflows', { token, rawBody: '{nope' }), 'body'],
      ['a body field out of bounds', t.call('POST', '/v1/workflows', { token, body: { name: '', manifest: {} } }), 'name'],
    ];
    for (const [label, pending, field] of cases) {
      const res = await pending;
      expect(res.status, label).toBe(400);
      expect(res.body.error.code, label).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields, label).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
      for (const f of res.body.error.details.fields) expect(Object.keys(f).sort(), label).toEqual(['field', 'message']);
      expect(res.body.error.details, label).not.toHaveProperty('field');
    }
    // Bounds stay beside the list.
    const range = await t.call('GET', '/v1/workflows?limit=1000', { token });
    expect(range.body.error.details).toMatchObject({ min: 1, max: 100 });
  });

  serviceTest('answers every DELETE with deleted: true', async ({ service: t }) => {
    const owner = await t.token('shapes-deleter@example.com');
    const other = await t.token('shapes-reviewer@example.com');
    const w = await createWorkflow(t, owner, { visibility: 'public' });
    const mine = await createWorkflow(t, other);
    expect((await t.call('POST', `/v1/library/${w.workflowId}`, { token: other, body: {} })).status).toBe(201);
    const review = await t.call('POST', `/v1/workflows/${w.workflowId}/reviews`, {
      token: other,
      body: { rating: 5, text: 'Works as described here.' },
    });
    expect(review.status, review.text).toBe(201);
    const dep = await t.call('POST', '/v1/deployments', { token: other, body: { name: 'Gone', workflowIds: [mine.workflowId] } });

    const answers = [
      await t.call('DELETE', `/v1/workflows/${w.workflowId}/reviews/${review.body.data.reviewId}`, { token: other }),
      await t.call('DELETE', `/v1/library/${w.workflowId}`, { token: other }),
      await t.call('DELETE', `/v1/deployments/${dep.body.data.deploymentId}`, { token: other }),
      await t.call('DELETE', `/v1/workflows/${mine.workflowId}`, { token: other }),
      await t.call('DELETE', '/v1/users/me', { token: other }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.deleted, res.text).toBe(true);
      expect(res.body.data).not.toHaveProperty('removed');
    }
    // The document says the same for every DELETE route.
    for (const [path, ops] of Object.entries(committed.paths as Record<string, Record<string, Schema>>)) {
      if (!ops.delete) continue;
      const data = ops.delete.responses['200'].content['application/json'].schema.properties.data;
      const target = data.$ref ? schemas[data.$ref.split('/').pop()]! : data;
      expect(target.required, path).toContain('deleted');
    }
  });
});
