import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startGitHubStandIn, startSignInProviders, type GitHubStandIn } from '../helpers/github-stand-in.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { linkIn, type TestSmtpServer } from '../helpers/smtp.js';

/** GitHub sign-in against a GitHub Enterprise stand-in on loopback, through the service's routes. */

const ORIGIN = 'http://127.0.0.1';

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(';')[0]!);
}

async function me(t: TestApp, cookie: string) {
  const res = await t.app.fetch(
    new Request(`${ORIGIN}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: ORIGIN },
      body: JSON.stringify({ query: '{ me { userId email displayName } }' }),
    }),
  );
  return (
    ((await res.json()) as { data?: { me: { userId: string; email: string | null; displayName: string | null } | null } }).data?.me ?? null
  );
}

/** Starts GitHub sign-in, lets the stand-in answer, and brings its answer back to the service. */
async function throughGitHub(t: TestApp, options: { cookie?: string; tamper?: (callback: URL) => void } = {}) {
  const start = await t.app.fetch(
    new Request(`${ORIGIN}/sign-in/github?return=%2Fworkflows`, { headers: { cookie: options.cookie ?? '' } }),
  );
  expect(start.status).toBe(303);
  const attemptCookie = cookiesOf(start).find((c) => c.startsWith('wf_github_sign_in='))!;
  expect(attemptCookie).toBeTruthy();
  const atGitHub = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  expect(atGitHub.status).toBe(302);
  const callback = new URL(atGitHub.headers.get('location')!);
  options.tamper?.(callback);
  const cookie = [options.cookie, attemptCookie].filter(Boolean).join('; ');
  const back = await t.app.fetch(new Request(`${ORIGIN}${callback.pathname}${callback.search}`, { headers: { cookie } }));
  const text = await back.text();
  const session = cookiesOf(back).find((c) => c.startsWith('wf_session='));
  return { status: back.status, location: back.headers.get('location'), type: back.headers.get('content-type'), text, session };
}

/** The sign-in providers the first service is started with (the GitHub stand-in and a mail server). */
let providers: Awaited<ReturnType<typeof startSignInProviders>> | undefined;

/** The service, signing in through the GitHub stand-in and by e-mail. */
const test = serviceTestWith(
  { PUBLIC_BASE_URL: `${ORIGIN}/v1` },
  { peers: async () => (providers = await startSignInProviders()) },
).extend<{ github: GitHubStandIn; smtp: TestSmtpServer }>({
  // The providers the service was started with (so after the service).
  github: [async ({ service: _ }, use) => use(providers!.github), { scope: 'file' }],
  smtp: [async ({ service: _ }, use) => use(providers!.smtp), { scope: 'file' }],
});

describe('GitHub sign-in (Enterprise stand-in)', () => {
  async function emailAccount(t: TestApp, smtp: TestSmtpServer, address: string): Promise<string> {
    const before = smtp.messages.length;
    const asked = await t.app.fetch(
      new Request(`${ORIGIN}/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: new URLSearchParams({ email: address, return: '/' }),
      }),
    );
    expect(asked.status).toBe(200);
    const token = new URL(linkIn(await smtp.waitForMessage(before + 1), ORIGIN)).searchParams.get('token')!;
    const used = await t.app.fetch(
      new Request(`${ORIGIN}/sign-in/email/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: new URLSearchParams({ token }),
      }),
    );
    return (await me(
      t,
      cookiesOf(used).find((c) => c.startsWith('wf_session='))!,
    ))!.userId;
  }

  test('lists GitHub and e-mail on the sign-in page', async ({ service: t }) => {
    const page = await t.call('GET', '/sign-in?return=%2Fworkflows');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/sign-in/github?return=%2Fworkflows"');
    expect(page.text).toContain('Sign in with GitHub');
    expect(page.text).toContain('action="/sign-in/email"');
  });

  test('signs in: the stand-in sees the client id, a redirect URI on the service, state, PKCE and the secret', async ({
    service: t,
    github,
  }) => {
    github.account = { id: 101, login: 'octo-ada', emails: [{ email: 'ada@gh.example', primary: true, verified: true }] };
    const result = await throughGitHub(t);
    expect(result.status).toBe(303);
    expect(result.location).toBe('/workflows');
    const seen = github.authorizations.at(-1)!;
    expect(seen.clientId).toBe(github.clientId);
    expect(seen.redirectUri).toBe(`${ORIGIN}/sign-in/github/callback`);
    expect(seen.state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(seen.codeChallengeMethod).toBe('S256');
    expect(seen.scope).toContain('user:email');
    const token = github.tokenRequests.at(-1)!;
    expect(token).toMatchObject({ clientId: github.clientId, clientSecret: github.clientSecret, accepted: true });
    const user = await me(t, result.session!);
    expect(user).toMatchObject({ email: 'ada@gh.example', displayName: 'octo-ada' });
    // The same GitHub account again: the same user.
    const again = await throughGitHub(t);
    expect((await me(t, again.session!))!.userId).toBe(user!.userId);
  });

  test('signs a verified primary address into the account it already opens; an unverified one never', async ({
    service: t,
    github,
    smtp,
  }) => {
    const verifiedOwner = await emailAccount(t, smtp, 'bea@example.com');
    github.account = { id: 202, login: 'bea-gh', emails: [{ email: 'Bea@Example.com', primary: true, verified: true }] };
    const verified = await throughGitHub(t);
    expect((await me(t, verified.session!))!.userId).toBe(verifiedOwner);

    const unverifiedOwner = await emailAccount(t, smtp, 'cy@example.com');
    github.account = {
      id: 303,
      login: 'cy-gh',
      emails: [
        { email: 'cy@example.com', primary: true, verified: false },
        { email: 'other@example.com', primary: false, verified: true },
      ],
    };
    const unverified = await throughGitHub(t);
    const other = await me(t, unverified.session!);
    expect(other!.userId).not.toBe(unverifiedOwner);
    // The unverified address names nothing.
    expect(other!.email).toBeNull();
  });

  test('keeps the rules of names: a login that looks like another user’s handle is not taken', async ({ service: t, github }) => {
    github.account = { id: 404, login: 'user-abcd1234', emails: [] };
    const result = await throughGitHub(t);
    expect((await me(t, result.session!))!.displayName).toBeNull();
  });

  test('answers a state mismatch, a missing attempt and GitHub refusing with pages', async ({ service: t, github }) => {
    github.account = { id: 505, login: 'eve', emails: [] };
    const mismatch = await throughGitHub(t, { tamper: (u) => u.searchParams.set('state', 'not-the-state') });
    expect(mismatch.status).toBe(400);
    expect(mismatch.type).toContain('text/html');
    expect(mismatch.text).toContain('This sign-in has expired or did not start here');
    expect(mismatch.session).toBeUndefined();

    const bare = await t.call('GET', '/sign-in/github/callback?code=x&state=y');
    expect(bare.status).toBe(400);
    expect(bare.headers.get('content-type')).toContain('text/html');

    github.account = null;
    const refused = await throughGitHub(t);
    expect(refused.status).toBe(401);
    expect(refused.type).toContain('text/html');
    expect(refused.text).toContain('GitHub did not sign you in');
    expect(refused.text).toContain('denied your application access');

    // A code GitHub does not accept (replayed): refused with a page.
    github.account = { id: 606, login: 'replay', emails: [] };
    const replay = await throughGitHub(t, { tamper: (u) => u.searchParams.set('code', 'not-a-code') });
    expect(replay.status).toBe(401);
    expect(replay.text).toContain('GitHub did not sign you in');

    const post = await t.call('POST', '/sign-in/github');
    expect(post.status).toBe(405);
    expect(post.headers.get('content-type')).toContain('text/html');
  });
});

describe('GitHub sign-in with the wrong secret', () => {
  let github: GitHubStandIn;
  let t: TestApp;
  // Starts a service of its own, with the wrong secret: a file has one fixture service (vitest
  // keeps a file-scoped fixture by its name, once per file), the one of the first describe.
  beforeAll(async () => {
    github = await startGitHubStandIn();
    t = await startTestApp({
      env: { PUBLIC_BASE_URL: `${ORIGIN}/v1`, GITHUB_CLIENT_ID: github.clientId, GITHUB_CLIENT_SECRET: 'wrong', GITHUB_URL: github.url },
    });
  });
  afterAll(async () => {
    await t?.close();
    await github?.close();
  });

  it('shows GitHub refusing, and signs no one in', async () => {
    github.account = { id: 1, login: 'someone', emails: [] };
    const result = await throughGitHub(t);
    expect(github.tokenRequests.at(-1)).toMatchObject({ clientSecret: 'wrong', accepted: false });
    expect(result.status).toBe(401);
    expect(result.text).toContain('GitHub did not sign you in');
    expect(result.session).toBeUndefined();
    expect(await t.database.db.prisma.user.count()).toBe(0);
  });
});

describe('the sign-in page with every way in', () => {
  let t: TestApp;
  // Starts a service of its own, with every way in configured: a file has one fixture service, the
  // one of the first describe.
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        PUBLIC_BASE_URL: `${ORIGIN}/v1`,
        // Nothing is fetched from the provider until someone chooses it.
        OIDC_ISSUER: 'http://127.0.0.1:9/',
        OIDC_AUDIENCE: 'x',
        OIDC_JWKS_URL: 'http://127.0.0.1:9/jwks',
        OIDC_CLIENT_ID: 'workflows',
        OIDC_PROVIDER_NAME: 'Acme SSO',
        GITHUB_CLIENT_ID: 'a',
        GITHUB_CLIENT_SECRET: 'b',
        SMTP_URL: 'smtp://127.0.0.1:9',
      },
    });
  });
  afterAll(() => t?.close());

  it('lists GitHub, the OpenID provider under its name and the e-mail form', async () => {
    const page = await t.call('GET', '/sign-in?return=%2Flibrary');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/sign-in/github?return=%2Flibrary"');
    expect(page.text).toContain('Sign in with Acme SSO');
    expect(page.text).toContain('href="/sign-in/oidc?return=%2Flibrary"');
    expect(page.text).toContain('action="/sign-in/email"');
    expect(page.text).not.toContain('/sign-in/dev');
    // Choosing GitHub leaves for GitHub (github.com by default).
    const github = await t.call('GET', '/sign-in/github?return=%2Flibrary');
    expect(github.status).toBe(303);
    expect(github.headers.get('location')).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
  });
});

describe('GitHub configuration', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ NODE_ENV: 'test', ...env });
      return '';
    } catch (error) {
      return (error as ConfigError).problems.join('\n');
    }
  };

  it('uses api.github.com for github.com and /api/v3 for an Enterprise Server', () => {
    expect(loadConfig({ GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b' }).github).toEqual({
      clientId: 'a',
      clientSecret: 'b',
      url: 'https://github.com',
      apiUrl: 'https://api.github.com',
    });
    expect(loadConfig({ GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b', GITHUB_URL: 'https://git.corp.example/' }).github?.apiUrl).toBe(
      'https://git.corp.example/api/v3',
    );
  });

  it('allows http only for a loopback GITHUB_URL, and needs both id and secret', () => {
    expect(problems({ GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b', GITHUB_URL: 'http://git.corp.example' })).toMatch(
      /GITHUB_URL must use https/,
    );
    expect(problems({ GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b', GITHUB_URL: 'http://127.0.0.1:9' })).toBe('');
    expect(problems({ GITHUB_CLIENT_ID: 'a' })).toMatch(/GITHUB_CLIENT_SECRET must be set too/);
    expect(problems({ GITHUB_URL: 'https://github.com' })).toMatch(/GITHUB_URL is set but GITHUB_CLIENT_ID/);
    expect(problems({ GITHUB_CLIENT_ID: 'a', GITHUB_CLIENT_SECRET: 'b', GITHUB_URL: 'https://x.example/?a=1' })).toMatch(
      /GITHUB_URL must be the address/,
    );
  });
});
