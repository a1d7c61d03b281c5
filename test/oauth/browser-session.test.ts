import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

const ORIGIN = 'http://127.0.0.1';
const DAY = 24 * 60 * 60 * 1000;

function cookieOf(response: Response): string {
  const header = response.headers.getSetCookie().find((c) => c.startsWith('wf_session=') || c.startsWith('__Host-wf_session='));
  if (!header) throw new Error(`no session cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return header;
}

async function devSignIn(t: TestApp, email: string, returnTo = '/workflows', origin = ORIGIN): Promise<Response> {
  return t.app.fetch(
    new Request(`${ORIGIN}/sign-in/dev`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ email, return: returnTo }).toString(),
    }),
  );
}

function graphqlWithCookie(t: TestApp, cookie: string, query: string, headers: Record<string, string> = { origin: ORIGIN }) {
  return t.app.fetch(
    new Request(`${ORIGIN}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, ...headers },
      body: JSON.stringify({ query }),
    }),
  );
}

const clock = new MovableClock(Date.parse('2026-03-01T10:00:00Z'));
/** The service on loopback, on a clock the tests move. */
const test = serviceTestWith({ PUBLIC_BASE_URL: 'http://127.0.0.1/v1' }, { clock });

describe('browser sign-in and sessions (development sign-in)', () => {
  test('shows the development sign-in page, with an e-mail field and no password', async ({ service: t }) => {
    const res = await t.call('GET', '/sign-in?return=%2Fdeployments');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('name="email"');
    expect(res.text).not.toContain('type="password"');
    expect(res.text).toContain('value="/deployments"');
  });

  test('signs in with an e-mail address: an HttpOnly SameSite cookie (not Secure on loopback) naming a server-side session', async ({
    service: t,
  }) => {
    const res = await devSignIn(t, 'ada@example.com');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/workflows');
    const cookie = cookieOf(res);
    expect(cookie).toMatch(/^wf_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    // Only a hash of the secret is stored.
    const secret = cookie.split(';')[0]!.split('=')[1]!;
    const rows = await t.database.db.prisma.browserSession.findMany();
    expect(rows.some((r) => r.id === secret)).toBe(false);

    const me = await graphqlWithCookie(t, cookie.split(';')[0]!, '{ me { email } }');
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ data: { me: { email: 'ada@example.com' } } });
  });

  test('is the same account as a development token for that address', async ({ service: t }) => {
    const token = await t.token('bob@example.com');
    await createWorkflow(t, token);
    const cookie = cookieOf(await devSignIn(t, 'bob@example.com')).split(';')[0]!;
    const res = await graphqlWithCookie(t, cookie, '{ me { workflowCount } }');
    expect((await res.json()).data.me.workflowCount).toBe(1);
  });

  test('refuses an e-mail address that is not one, and a return path to another host', async ({ service: t }) => {
    const bad = await devSignIn(t, 'not-an-address');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Enter an e-mail address such as name@example.com.');
    const empty = await devSignIn(t, '');
    expect(empty.status).toBe(400);
    const away = await devSignIn(t, 'ada@example.com', '//evil.example/steal');
    expect(away.headers.get('location')).toBe('/');
  });

  test('refuses a sign-in form posted from another site', async ({ service: t }) => {
    const res = await devSignIn(t, 'ada@example.com', '/', 'https://evil.example');
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('FORBIDDEN');
  });

  test('refuses a cross-site GraphQL request that carries the session cookie', async ({ service: t }) => {
    const cookie = cookieOf(await devSignIn(t, 'ada@example.com')).split(';')[0]!;
    const mutation = 'mutation { createDeployment(name: "stolen", workflowIds: []) { deploymentId } }';
    const cases: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      {},
      { origin: ORIGIN, 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of cases) {
      const res = await graphqlWithCookie(t, cookie, mutation, headers);
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(body.errors[0].message).toContain('must come from the dashboard itself');
    }
    expect(await t.database.db.prisma.deployment.count({ where: { name: 'stolen' } })).toBe(0);
  });

  test('ends a session after 7 days without activity, and keeps an active one going', async ({ service: t }) => {
    const cookie = cookieOf(await devSignIn(t, 'idle@example.com')).split(';')[0]!;
    // Active every 6 days: still signed in three weeks later, and the cookie is renewed.
    for (let i = 0; i < 3; i++) {
      clock.advance(6 * DAY);
      const res = await graphqlWithCookie(t, cookie, '{ me { email } }');
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toContain(`Max-Age=${7 * 24 * 3600}`);
    }
    clock.advance(7 * DAY);
    const res = await graphqlWithCookie(t, cookie, '{ me { email } }');
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(body.errors[0].message).toContain('sign in again');
    // The sign-in page now shows the form again instead of passing through.
    const page = await t.app.fetch(new Request(`${ORIGIN}/sign-in`, { headers: { cookie } }));
    expect(page.status).toBe(200);
  });

  test('ends the session on sign-out', async ({ service: t }) => {
    const cookie = cookieOf(await devSignIn(t, 'out@example.com')).split(';')[0]!;
    const out = await t.app.fetch(new Request(`${ORIGIN}/sign-out`, { method: 'POST', headers: { cookie, origin: ORIGIN } }));
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/sign-in?signed_out=1');
    expect(cookieOf(out)).toContain('Max-Age=0');
    const res = await graphqlWithCookie(t, cookie, '{ me { email } }');
    expect(res.status).toBe(401);
  });

  test('passes a signed-in browser straight through the sign-in page', async ({ service: t }) => {
    const cookie = cookieOf(await devSignIn(t, 'ada@example.com')).split(';')[0]!;
    const res = await t.app.fetch(new Request(`${ORIGIN}/sign-in?return=%2Faccount`, { headers: { cookie } }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account');
  });

  test('still takes Bearer tokens on /graphql, whatever cookie is sent beside them', async ({ service: t }) => {
    const token = await t.token('carol@example.com');
    const res = await t.app.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, cookie: 'wf_session=unknown' },
        body: JSON.stringify({ query: '{ me { email } }' }),
      }),
    );
    expect((await res.json()).data.me.email).toBe('carol@example.com');
  });
});

// Each test starts a service of its own, with the setting it is about: a file has one fixture
// service (vitest keeps a file-scoped fixture by its name, once per file), the loopback one above.
describe('browser sign-in settings', () => {
  it('names the cookie __Host- and marks it Secure outside loopback', async () => {
    const t = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://workflows.example.com/v1' } });
    try {
      const res = await t.app.fetch(
        new Request('https://workflows.example.com/sign-in/dev', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://workflows.example.com' },
          body: 'email=sec%40example.com&return=%2F',
        }),
      );
      const cookie = cookieOf(res);
      expect(cookie).toMatch(/^__Host-wf_session=/);
      expect(cookie).toContain('Secure');
    } finally {
      await t.close();
    }
  });

  it('has no development sign-in when an identity provider is configured, and says what is missing without a client id', async () => {
    const t = await startTestApp({
      env: { OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_AUDIENCE: 'x', OIDC_JWKS_URL: 'http://127.0.0.1:9/jwks' },
    });
    try {
      const page = await t.call('GET', '/sign-in');
      expect(page.status).toBe(503);
      expect(page.text).toContain('Sign-in is not configured');
      // It names every variable that would give a way in.
      for (const name of ['OIDC_CLIENT_ID', 'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET', 'SMTP_URL'])
        expect(page.text, name).toContain(name);
      const dev = await t.call('POST', '/sign-in/dev', {
        rawBody: 'email=a%40example.com',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      });
      expect(dev.status).toBe(404);
      expect(dev.body.error.message).toContain('development sign-in is off');
    } finally {
      await t.close();
    }
  });
});
