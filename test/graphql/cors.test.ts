import { describe, expect } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';

/**
 * /graphql is for the dashboard (same origin) and for programs (no browser): it never tells a
 * browser that another site's page may read its answers, with or without credentials.
 */
describe('/graphql and other origins (CORS)', () => {
  const EVIL = 'https://evil.example';

  serviceTest('a preflight from another origin is not granted', async ({ service: t }) => {
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

  serviceTest(
    'an answer to another origin carries no Access-Control-Allow-Origin, whether the request carries a credential or not',
    async ({ service: t, alice: token }) => {
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
    },
  );
});
