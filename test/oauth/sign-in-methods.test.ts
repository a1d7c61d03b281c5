import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import { startSignInProviders, type GitHubStandIn } from '../helpers/github-stand-in.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { linkIn, type TestSmtpServer } from '../helpers/smtp.js';

/**
 * One account, several ways in: listing them (GraphQL), adding GitHub and an e-mail address from a
 * signed-in browser, removing them (never the last), and an account deleted staying deleted
 * whichever way its owner comes back.
 */

const ORIGIN = 'http://127.0.0.1';

function sessionOf(response: Response): string | undefined {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('wf_session='));
}

const clock = new MovableClock();
/** The sign-in providers the service is started with (the GitHub stand-in and a mail server). */
let providers: Awaited<ReturnType<typeof startSignInProviders>> | undefined;

/** What the file's tests share: the GitHub stand-in, and the browser's calls they make of the service. */
function seed(t: TestApp, { github, smtp }: { github: GitHubStandIn; smtp: TestSmtpServer }) {
  const post = (path: string, fields: Record<string, string>, cookie = '') =>
    t.app.fetch(
      new Request(`${ORIGIN}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, cookie },
        body: new URLSearchParams(fields),
      }),
    );

  async function gql<T = any>(cookie: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const res = await t.app.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: ORIGIN },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await res.json()) as T;
  }

  /** Sends a link to `email` (optionally to add it to the signed-in account) and returns its token. */
  async function linkToken(email: string, cookie = '', intent?: 'link'): Promise<string> {
    const before = smtp.messages.length;
    const res = await post('/sign-in/email', { email, return: '/account', ...(intent ? { intent } : {}) }, cookie);
    expect(res.status, await res.clone().text()).toBe(200);
    return new URL(linkIn(await smtp.waitForMessage(before + 1), ORIGIN)).searchParams.get('token')!;
  }

  async function signInByEmail(email: string): Promise<string> {
    return sessionOf(await post('/sign-in/email/confirm', { token: await linkToken(email) }))!;
  }

  async function throughGitHub(path: string, cookie = ''): Promise<Response> {
    const start = await t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { cookie } }));
    expect(start.status).toBe(303);
    const attempt = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('wf_github_sign_in='))!;
    const atGitHub = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(atGitHub.headers.get('location')!);
    return t.app.fetch(
      new Request(`${ORIGIN}${callback.pathname}${callback.search}`, { headers: { cookie: [cookie, attempt].filter(Boolean).join('; ') } }),
    );
  }

  return { github, post, gql, linkToken, signInByEmail, throughGitHub };
}

/** The service on a clock the tests move, signing in through the GitHub stand-in and by e-mail. */
const test = serviceTestWith(
  { PUBLIC_BASE_URL: `${ORIGIN}/v1` },
  { clock, peers: async () => (providers = await startSignInProviders()) },
).extend<{ world: ReturnType<typeof seed> }>({
  // The providers the service was started with (so after the service).
  world: [async ({ service }, use) => use(seed(service, providers!)), { scope: 'file' }],
});

describe('ways into one account', () => {
  const METHODS = '{ signInMethods { id method label email emailVerified } signInMethodsToAdd me { userId } }';

  test('lists, adds and removes ways in; the last one stays', async ({
    world: { github, post, gql, linkToken, signInByEmail, throughGitHub },
  }) => {
    const cookie = await signInByEmail('kim@example.com');
    const first = await gql(cookie, METHODS);
    expect(first.data.signInMethods).toMatchObject([{ method: 'email', label: 'kim@example.com', emailVerified: true }]);
    expect(first.data.signInMethodsToAdd).toEqual(['github', 'email']);
    const userId = first.data.me.userId;

    // The last way in cannot be removed.
    const last = await gql(cookie, 'mutation($id: ID!) { removeSignInMethod(id: $id) { deleted } }', {
      id: first.data.signInMethods[0].id,
    });
    expect(last.errors[0].extensions.code).toBe('CONFLICT');

    // Add GitHub (an account with no verified address: linking does not need one).
    github.account = { id: 9001, login: 'kim-gh', emails: [] };
    const added = await throughGitHub('/sign-in/github?link=1&return=%2Faccount', cookie);
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe('/account');
    // Add a second address, by a link opened in the same browser.
    const token = await linkToken('kim.work@example.com', cookie, 'link');
    const addedEmail = await post('/sign-in/email/confirm', { token }, cookie);
    expect(addedEmail.status).toBe(303);
    const now = await gql(cookie, METHODS);
    expect(now.data.signInMethods.map((m: { method: string; label: string }) => `${m.method}:${m.label}`)).toEqual([
      'email:kim@example.com',
      'github:kim-gh',
      'email:kim.work@example.com',
    ]);
    // Each opens this account.
    const viaGitHub = sessionOf(await throughGitHub('/sign-in/github?return=%2F'))!;
    expect((await gql(viaGitHub, '{ me { userId } }')).data.me.userId).toBe(userId);
    const viaWork = await signInByEmail('kim.work@example.com');
    expect((await gql(viaWork, '{ me { userId } }')).data.me.userId).toBe(userId);

    // Removing the first address: it no longer opens this account (a new one instead).
    const left = await gql(cookie, 'mutation($id: ID!) { removeSignInMethod(id: $id) { deleted signInMethods { method label } } }', {
      id: now.data.signInMethods[0].id,
    });
    expect(left.data.removeSignInMethod).toEqual({
      deleted: true,
      signInMethods: [
        { method: 'github', label: 'kim-gh' },
        { method: 'email', label: 'kim.work@example.com' },
      ],
    });
    const viaOld = await signInByEmail('kim@example.com');
    expect((await gql(viaOld, '{ me { userId } }')).data.me.userId).not.toBe(userId);

    // Someone else's way in, or one that does not exist: NOT_FOUND.
    const others = await gql(viaOld, METHODS);
    const foreign = await gql(cookie, 'mutation($id: ID!) { removeSignInMethod(id: $id) { deleted } }', {
      id: others.data.signInMethods[0].id,
    });
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('refuses to add a way in that opens another account, with a page', async ({
    service: t,
    world: { github, post, linkToken, signInByEmail, throughGitHub },
  }) => {
    const a = await signInByEmail('owner-a@example.com');
    github.account = { id: 9101, login: 'taken', emails: [] };
    await throughGitHub('/sign-in/github?return=%2F'); // GitHub 9101 opens an account of its own
    const refused = await throughGitHub('/sign-in/github?link=1&return=%2Faccount', a);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toContain('already opens another account');
    // Adding needs a signed-in browser.
    const anonymous = await t.app.fetch(new Request(`${ORIGIN}/sign-in/github?link=1`));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('text/html');
    const anonymousEmail = await post('/sign-in/email', { email: 'x@example.com', intent: 'link' });
    expect(anonymousEmail.status).toBe(401);
    // A link to add an address, opened in another browser: refused.
    const token = await linkToken('owner-a.second@example.com', a, 'link');
    const elsewhere = await post('/sign-in/email/confirm', { token });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('Open the link where you asked for it');
  });

  test('keeps a deleted account deleted whichever way its owner comes back', async ({
    service: t,
    world: { github, post, gql, linkToken, signInByEmail, throughGitHub },
  }) => {
    const cookie = await signInByEmail('gone@example.com');
    github.account = { id: 9201, login: 'gone-gh', emails: [{ email: 'gone@example.com', primary: true, verified: true }] };
    await throughGitHub('/sign-in/github?link=1&return=%2Faccount', cookie);
    const { data } = await gql(cookie, METHODS);
    expect(data.signInMethods).toHaveLength(2);
    const oldId = data.me.userId;
    // A link sent before the deletion.
    const early = await linkToken('gone@example.com');
    clock.advance(1100);
    const deleted = await gql(cookie, 'mutation { deleteMe { deleted } }');
    expect(deleted.data.deleteMe.deleted).toBe(true);

    // The link sent before: refused, with a page; nothing made.
    const refused = await post('/sign-in/email/confirm', { token: early });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await t.database.db.prisma.user.count({ where: { email: 'gone@example.com' } })).toBe(0);
    clock.advance(1100);
    // GitHub now: a new, empty account, not the old one.
    const viaGitHub = sessionOf(await throughGitHub('/sign-in/github?return=%2F'))!;
    const fresh = await gql(viaGitHub, '{ me { userId workflowCount } signInMethods { method } }');
    expect(fresh.data.me.userId).not.toBe(oldId);
    expect(fresh.data.signInMethods).toEqual([{ method: 'github' }]);
    // A new link: the same new account (the verified address it shares with GitHub).
    const viaEmail = await signInByEmail('gone@example.com');
    expect((await gql(viaEmail, '{ me { userId } }')).data.me.userId).toBe(fresh.data.me.userId);
  });

  test('answers the same over REST: GET and DELETE /v1/users/me/sign-in-methods', async ({ service: t }) => {
    const token = await t.token('rest-user@example.com');
    const listed = await t.call('GET', '/v1/users/me/sign-in-methods', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject([{ method: 'oidc', label: 'rest-user@example.com', emailVerified: false }]);
    const only = listed.body.data[0].id;
    const refused = await t.call('DELETE', `/v1/users/me/sign-in-methods/${only}`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    const missing = await t.call('DELETE', '/v1/users/me/sign-in-methods/sid_nothing', { token });
    expect(missing.status).toBe(404);
    expect((await t.call('GET', '/v1/users/me/sign-in-methods')).status).toBe(401);
  });
});
