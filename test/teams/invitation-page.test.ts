import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { createTeam, tokenOfLink, verifyEmail } from './helpers.js';

const ORIGIN = 'http://127.0.0.1';

/** Alice's team, whose name is markup the page must show as text. */
const test = serviceTestWith({ PUBLIC_BASE_URL: `${ORIGIN}/v1` }).extend<{ teamId: string }>({
  teamId: [async ({ service: t, alice }, use) => use(await createTeam(t, alice, '<b>Team & co</b>')), { scope: 'file' }],
});

/** The page an invitation's link opens: it accepts only on the confirm button's POST. */
describe('the invitation page', () => {
  async function sessionOf(t: TestApp, email: string): Promise<string> {
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

  const open = (t: TestApp, path: string, cookie?: string, method = 'GET') =>
    t.app.fetch(new Request(`${ORIGIN}${path}`, { method, headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } }));

  test('sends a visitor who is not signed in to sign in and back', async ({ service: t, alice, teamId }) => {
    const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: alice,
      body: { email: 'bob@example.com', role: 'member' },
    });
    const path = `/invitations/${tokenOfLink(invited.body.data.acceptUrl)}`;
    const res = await open(t, path);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/sign-in?return=${encodeURIComponent(path)}`);
  });

  test('shows the team with a confirm button, joins only on its POST, and works once', async ({ service: t, alice, teamId }) => {
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
    const cookie = await sessionOf(t, 'bob@example.com');
    const page = await open(t, path, cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('&#60;b&#62;Team &#38; co&#60;/b&#62;');
    expect(html).not.toContain('<b>Team');
    expect(html).toContain(`<form method="post" action="${path}">`);
    // Opening the page joined nobody.
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice })).body.data).toHaveLength(1);
    const joined = await open(t, path, cookie, 'POST');
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain('You joined the team');
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice })).body.data).toHaveLength(2);
    const used = await open(t, path, cookie);
    expect(used.status).toBe(410);
    expect(await used.text()).toContain('already been used');
  });

  test('answers a link that names no invitation with a page, not an error', async ({ service: t }) => {
    const cookie = await sessionOf(t, 'carol@example.com');
    const res = await open(t, `/invitations/${'a'.repeat(43)}`, cookie);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
