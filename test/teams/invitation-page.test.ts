import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTeam, tokenOfLink, verifyEmail } from './helpers.js';

const ORIGIN = 'http://127.0.0.1';

/** The page an invitation's link opens: it accepts only on the confirm button's POST. */
describe('the invitation page', () => {
  let t: TestApp;
  let alice: string;
  let teamId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_BASE_URL: `${ORIGIN}/v1` } });
    alice = await t.token('alice@example.com');
    teamId = await createTeam(t, alice, '<b>Team & co</b>');
  });
  afterAll(() => t?.close());

  async function sessionOf(email: string): Promise<string> {
    const res = await t.app.fetch(
      new Request(`${ORIGIN}/sign-in/dev`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: new URLSearchParams({ email, return: '/' }).toString(),
      }),
    );
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('wf_session='));
    if (!cookie) throw new Error(`not signed in: ${res.status}`);
    return cookie.split(';')[0]!;
  }

  const open = (path: string, cookie?: string, method = 'GET') =>
    t.app.fetch(new Request(`${ORIGIN}${path}`, { method, headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } }));

  it('sends a visitor who is not signed in to sign in and back', async () => {
    const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: alice,
      body: { email: 'bob@example.com', role: 'member' },
    });
    const path = `/invitations/${tokenOfLink(invited.body.data.acceptUrl)}`;
    const res = await open(path);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/sign-in?return=${encodeURIComponent(path)}`);
  });

  it('shows the team with a confirm button, joins only on its POST, and works once', async () => {
    await t.token('bob@example.com');
    await verifyEmail(t, 'bob@example.com');
    const invited = await t.call('GET', `/v1/teams/${teamId}/invitations`, { token: alice });
    expect(invited.body.data).toHaveLength(1);
    const again = await t.call('DELETE', `/v1/teams/${teamId}/invitations/${invited.body.data[0].invitationId}`, { token: alice });
    expect(again.status).toBe(200);
    const fresh = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: alice,
      body: { email: 'bob@example.com', role: 'admin' },
    });
    const path = `/invitations/${tokenOfLink(fresh.body.data.acceptUrl)}`;
    const cookie = await sessionOf('bob@example.com');
    const page = await open(path, cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('&#60;b&#62;Team &#38; co&#60;/b&#62;');
    expect(html).not.toContain('<b>Team');
    expect(html).toContain(`<form method="post" action="${path}">`);
    // Opening the page joined nobody.
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice })).body.data).toHaveLength(1);
    const joined = await open(path, cookie, 'POST');
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain('You joined the team');
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice })).body.data).toHaveLength(2);
    const used = await open(path, cookie);
    expect(used.status).toBe(410);
    expect(await used.text()).toContain('already been used');
  });

  it('answers a link that names no invitation with a page, not an error', async () => {
    const cookie = await sessionOf('carol@example.com');
    const res = await open(`/invitations/${'a'.repeat(43)}`, cookie);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
