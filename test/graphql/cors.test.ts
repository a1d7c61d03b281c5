import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

/**
 * /graphql is for the dashboard (same origin) and for programs (no browser): it never tells a
 * browser that another site's page may read its answers, with or without credentials.
 */
describe('/graphql and other origins (CORS)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = await t.token('cors@example.com');
  });
  afterAll(async () => t?.close());

  const EVIL = 'https://evil.example';

  it('a preflight from another origin is not granted', async () => {
    const res = await t.app.fetch(
      new Request('http://127.0.0.1/graphql', {
        method: 'OPTIONS',
        headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
      }),
    );
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')).toBeNull();
  });

  it('an answer to another origin carries no Access-Control-Allow-Origin, whether the request carries a credential or not', async () => {
    for (const authorization of [`Bearer ${token}`, undefined]) {
      const res = await t.app.fetch(
        new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: { origin: EVIL, 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
          body: JSON.stringify({ query: '{ me { userId } }' }),
        }),
      );
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const answered = await t.graphql('{ me { userId } }', {}, token);
    expect(answered.status).toBe(200);
    expect(answered.body.data.me.userId).toMatch(/^usr_/);
  });
});
