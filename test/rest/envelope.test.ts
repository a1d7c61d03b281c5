import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** A service that reads request bodies of up to 2 KiB, and a user for each part of the file. */
const envelopeTest = serviceTestWith({ BODY_LIMIT_BYTES: '2048' }).extend<{ envToken: string; bodyToken: string }>({
  envToken: [async ({ service }, use) => use(await service.token('env@example.com')), { scope: 'file' }],
  bodyToken: [async ({ service }, use) => use(await service.token('body@example.com')), { scope: 'file' }],
});

/** The response envelope (spec 2.1, 7) on every kind of answer, and the health checks. */
describe('envelope, errors and health', () => {
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String), details: expect.any(Object) } });
    expect(res.body.error.message.length).toBeGreaterThan(5);
  };

  envelopeTest('wraps a success in { success, data }', async ({ service: t, envToken: token }) => {
    const res = await t.call('GET', '/v1/users/me', { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  envelopeTest('answers an unknown route with 404 NOT_FOUND', async ({ service: t, envToken: token }) => {
    expectError(await t.call('GET', '/v1/does-not-exist', { token }), 404, 'NOT_FOUND');
    expectError(await t.call('GET', '/nothing-here'), 404, 'NOT_FOUND');
  });

  envelopeTest('never repeats a path segment that could be a key in an error', async ({ service: t, envToken: token }) => {
    const key = `wfk_${'a1b2c3d4'.repeat(5)}`;
    for (const [method, path] of [
      ['GET', `/v1/mcp/dep_abc/${key}`],
      ['GET', `/v1/deployments/dep_abc/${key}/mcp`],
      ['GET', `/somewhere/${key}`],
      ['PATCH', `/v1/workflows/${key}`],
    ] as const) {
      const res = await t.call(method, path, { token, body: method === 'PATCH' ? {} : undefined });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.text, `${method} ${path}`).not.toContain(key);
      expect(res.text).toContain('<redacted>');
    }
  });

  envelopeTest('answers a wrong method on a known path with 405 and Allow', async ({ service: t, envToken: token }) => {
    const res = await t.call('DELETE', '/v1/users/me/extra', { token });
    expectError(res, 404, 'NOT_FOUND');
    const wrong = await t.call('PATCH', '/v1/users/me', { token, body: {} });
    expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toContain('GET');
  });

  envelopeTest('echoes a sane X-Request-Id and makes one otherwise', async ({ service: t, envToken: token }) => {
    const echoed = await t.call('GET', '/v1/users/me', { token, headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await t.call('GET', '/v1/users/me', { token, headers: { 'x-request-id': 'bad id with spaces <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const err = await t.call('GET', '/v1/nowhere');
    expect(err.headers.get('x-request-id')).toBeTruthy();
  });

  envelopeTest('GET /healthz answers without a token', async ({ service: t }) => {
    const res = await t.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  envelopeTest('GET /readyz reports the database', async ({ service: t }) => {
    const res = await t.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('ready');
  });

  envelopeTest('serves the OpenAPI document and a reference page without a token', async ({ service: t }) => {
    const doc = await t.call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.paths['/v1/users/me'].get.responses['200']).toBeDefined();
    const page = await t.call('GET', '/v1/reference');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('openapi.json');
  });
});

describe('request bodies', () => {
  envelopeTest(
    'refuses unparsable JSON, a JSON array and an oversized body, each in the envelope',
    async ({ service: t, bodyToken: token }) => {
      const path = '/v1/manifests/validate';
      const bad = await t.call('POST', path, { token, rawBody: '{"name": ' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
      const arr = await t.call('POST', path, { token, rawBody: '[1,2]' });
      expect(arr.status).toBe(400);
      expect(arr.body.error.message).toMatch(/object/);
      const big = await t.call('POST', path, { token, rawBody: JSON.stringify({ name: 'x'.repeat(5000) }) });
      expect(big.status).toBe(413);
      expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    },
  );

  envelopeTest(
    'refuses text with an unpaired surrogate (a \\ud800 escape) with 400, in a field, a manifest and GraphQL, storing nothing',
    async ({ service: t, bodyToken: token }) => {
      const { sampleManifest } = await import('../helpers/workflows.js');
      const name = await t.call('POST', '/v1/workflows', {
        token,
        rawBody: `{"name":"bad \\ud800 name","manifest":${JSON.stringify(sampleManifest())}}`,
      });
      expect(name.status).toBe(400);
      expect(name.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'name' }] } });
      const manifest = JSON.stringify(sampleManifest()).replace('"Plan a change', '"Plan a \\udc00 change');
      const inManifest = await t.call('POST', '/v1/workflows', { token, rawBody: `{"name":"fine","manifest":${manifest}}` });
      expect(inManifest.status).toBe(400);
      expect(inManifest.body.error.code).toBe('VALIDATION_ERROR');
      const query = JSON.stringify('mutation($m: JSON!) { createWorkflow(name: "x", manifest: $m) { workflowId } }');
      const graphql = await t.call('POST', '/graphql', { token, rawBody: `{"query":${query},"variables":{"m":${manifest}}}` });
      expect(graphql.status).toBe(200);
      expect(graphql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      const list = await t.call('GET', '/v1/workflows', { token });
      expect(list.body.data).toEqual([]);
    },
  );

  envelopeTest('applies the body limit to GraphQL too', async ({ service: t, bodyToken: token }) => {
    const res = await t.call('POST', '/graphql', { token, body: { query: `{ me { userId } } # ${'x'.repeat(5000)}` } });
    expect(res.status).toBe(413);
  });
});

describe('readiness when the database is gone', () => {
  it('GET /readyz answers 503 in the envelope', async () => {
    const t = await startTestApp();
    await t.database.db.close();
    const res = await t.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    await t.app.close();
    await t.database.drop().catch(() => {});
  });
});
