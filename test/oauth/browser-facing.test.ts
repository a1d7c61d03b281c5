import { describe, expect } from 'vitest';
import { decodeJwt } from 'jose';
import { MCP_ACCEPT } from '../helpers/mcp.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTestWith } from '../helpers/service-test.js';
import {
  answerConsent,
  authorizationUrl,
  createBrowser,
  exchangeCode,
  OAUTH_ENV,
  OAUTH_ORIGIN,
  ownerWithDeployments,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  toConsent,
  tokenRequest,
  type TestBrowser,
} from '../helpers/oauth.js';

/**
 * What a person sees of the authorization server: pages of the service for its errors, no open
 * redirects before consent, a consent page that says exactly what is given and to whom, and the
 * sign-in pages' bad inputs.
 */
const ORIGIN = OAUTH_ORIGIN;
const OWNER = 'pages-owner@example.com';
const OTHER = 'pages-other@example.com';
const ATTACKER_REDIRECT = 'https://attacker.example/cb';

/** The service, the tool endpoint of a private deployment of OWNER's (the resource asked for), and a browser the file's tests share. */
const test = serviceTestWith(OAUTH_ENV).extend<{ resource: string; browser: TestBrowser }>({
  resource: [
    async ({ service: t }, use) => {
      const [dep] = (await ownerWithDeployments(t, OWNER, ['Private one'])).deploymentIds;
      await use(`${ORIGIN}/v1/mcp/${dep}`);
    },
    { scope: 'file' },
  ],
  browser: [async ({ service: t }, use) => use(createBrowser(t.app, ORIGIN)), { scope: 'file' }],
});

describe('the authorization server in a browser', () => {
  function expectServicePage(res: Response, html: string) {
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('— Workflow dashboard</title>');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    // Nothing from another host (the library's own error page imported a web font).
    expect(html).not.toMatch(/<link|<script|src=/i);
    expect(html).not.toContain('@import');
  }

  describe('no open redirects (RFC 9700, 4.11.2)', () => {
    test('before consent, an error for a client with an https redirect URI is a page of the service, not a redirect', async ({
      service: t,
      browser,
      resource,
    }) => {
      const clientId = await registerClient(t.app, ORIGIN, { client_name: 'Far away', redirect_uris: [ATTACKER_REDIRECT] });
      const variants: Record<string, string>[] = [
        { prompt: 'none' },
        { resource: `${ORIGIN}/v1/workflows` },
        { code_challenge: '', code_challenge_method: '' },
      ];
      for (const params of variants) {
        const res = await browser.request(
          authorizationUrl(ORIGIN, { client_id: clientId, redirect_uri: ATTACKER_REDIRECT, resource, ...params }),
        );
        const html = await res.text();
        expect(res.headers.get('location'), JSON.stringify(params)).toBeNull();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expectServicePage(res, html);
        expect(html).toContain('<q><bdi>Far away</bdi></q>');
        expect(html).toContain('attacker.example');
      }
    });

    test("a loopback client still gets its errors at its redirect URI (it is the user's own IDE)", async ({
      service: t,
      browser,
      resource,
    }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const res = await browser.request(authorizationUrl(ORIGIN, { client_id: clientId, resource, prompt: 'none' }));
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('error')).toBe('login_required');
    });

    test('response modes that answer with a self-submitting page or a fragment are refused with a page', async ({
      service: t,
      browser,
      resource,
    }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      for (const mode of ['form_post', 'fragment', 'web_message']) {
        const res = await browser.request(authorizationUrl(ORIGIN, { client_id: clientId, resource, response_mode: mode }));
        expect(res.headers.get('location')).toBeNull();
        expectServicePage(res, await res.text());
      }
    });

    test('there is no RP-initiated logout to bounce through', async ({ service: t, browser }) => {
      const clientId = await registerClient(t.app, ORIGIN, { redirect_uris: [ATTACKER_REDIRECT] });
      const res = await browser.request(
        `/oauth/session/end?client_id=${encodeURIComponent(clientId)}&post_logout_redirect_uri=${encodeURIComponent(ATTACKER_REDIRECT)}`,
      );
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).not.toContain('attacker.example');
      const refused = await t.call('POST', '/oauth/register', {
        body: { client_name: 'Logout', redirect_uris: [REDIRECT_URI], post_logout_redirect_uris: [ATTACKER_REDIRECT] },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_client_metadata');
    });
  });

  describe('errors a person sees are pages of the service', () => {
    test('an unknown client, a metadata document that cannot be read, a bad redirect URI: each says what happened and what to do', async ({
      browser,
      resource,
    }) => {
      const cases: [Record<string, string>, RegExp][] = [
        [{ client_id: 'no-such-client' }, /Unknown application[\s\S]*Start the connection again from your IDE/],
        [{ client_id: 'https://127.0.0.1:1/doc.json' }, /could not be identified[\s\S]*operator/],
      ];
      for (const [params, text] of cases) {
        const res = await browser.request(authorizationUrl(ORIGIN, { resource, ...params }));
        const html = await res.text();
        expect(res.status).toBeGreaterThanOrEqual(400);
        expectServicePage(res, html);
        expect(html).toMatch(text);
        expect(html).toContain('<code>invalid_client</code>');
      }
    });

    test('programs still get JSON: the token and registration endpoints', async ({ service: t }) => {
      const token = await tokenRequest(t.app, ORIGIN, { grant_type: 'authorization_code', code: 'nope', client_id: 'nope' });
      expect(token.body.error).toBe('invalid_client');
      const registration = await t.call('POST', '/oauth/register', { body: { redirect_uris: ['javascript:alert(1)'] } });
      expect(registration.headers.get('content-type')).toMatch(/json/);
      expect(registration.body.error).toBe('invalid_redirect_uri');
    });
  });

  describe('consent', () => {
    test("L1: confirming consent for another user's private deployment is refused on POST as on GET", async ({ service: t, resource }) => {
      const other = createBrowser(t.app, ORIGIN);
      const clientId = await registerClient(t.app, ORIGIN);
      const page = await toConsent(other, authorizationUrl(ORIGIN, { client_id: clientId, resource }), OTHER);
      expect(page.response.status).toBe(404);
      expect(await page.response.text()).toContain('Deployment not found');
      const confirm = await other.follow(`${new URL(page.url).pathname}/confirm`, { form: {} });
      expect(confirm.url).not.toContain('code=');
      expect(confirm.response.status).toBe(404);
      expect(await confirm.response.text()).toContain('Deployment not found');
    });

    test('L2: before sign-in, an existing private deployment and an unknown one are answered alike', async ({ service: t, resource }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const anonymous = createBrowser(t.app, ORIGIN);
      const shape = async (target: string) => {
        const res = await anonymous.request(authorizationUrl(ORIGIN, { client_id: clientId, resource: target }));
        return { status: res.status, location: (res.headers.get('location') ?? '').replace(/[A-Za-z0-9_-]{20,}/g, 'ID') };
      };
      const known = await shape(resource);
      const unknown = await shape(`${ORIGIN}/v1/mcp/dep_doesnotexist0000000000`);
      expect(known).toEqual(unknown);
      expect(known.status).toBe(303);
    });

    test('L3: scope openid gives the account id shown on the consent page and never the e-mail address', async ({
      service: t,
      resource,
    }) => {
      const own = createBrowser(t.app, ORIGIN);
      const clientId = await registerClient(t.app, ORIGIN);
      const { verifier, challenge } = pkcePair();
      const consent = await toConsent(
        own,
        authorizationUrl(ORIGIN, { client_id: clientId, code_challenge: challenge, resource, scope: 'openid email mcp' }),
        OWNER,
      );
      const back = await answerConsent(own, consent, 'confirm');
      expect(back.html).toContain('It also learns the id of your account here (not your e-mail address).');
      const issued = await exchangeCode(t.app, ORIGIN, {
        clientId,
        verifier,
        code: new URL(back.url).searchParams.get('code'),
        url: new URL(back.url),
      });
      expect(issued.status).toBe(200);
      expect(JSON.stringify(issued.body)).not.toContain(OWNER);
      if (issued.body.id_token) expect(decodeJwt(issued.body.id_token as string).email).toBeUndefined();
    });

    test('L4: client_name is bounded and plain, and shown as a quoted name the service has not checked', async ({
      service: t,
      resource,
    }) => {
      const long = await t.call('POST', '/oauth/register', { body: { client_name: 'x'.repeat(81), redirect_uris: [REDIRECT_URI] } });
      expect(long.status).toBe(400);
      expect(long.body.error_description).toMatch(/client_name is longer than 80/);
      const shaped = await t.call('POST', '/oauth/register', {
        body: { client_name: 'Workflow service\u202e\nSign in', redirect_uris: [REDIRECT_URI] },
      });
      expect(shaped.status).toBe(400);
      const lookalike = 'Workflow dashboard — verified';
      const clientId = await registerClient(t.app, ORIGIN, { client_name: lookalike });
      const page = await toConsent(createBrowser(t.app, ORIGIN), authorizationUrl(ORIGIN, { client_id: clientId, resource }), OWNER);
      const html = await page.response.text();
      expect(html).toContain('<h1>Connect an application?</h1>');
      expect(html).toContain(`calling itself <q><bdi>${lookalike}</bdi></q>`);
      expect(html).toContain('Name given by the application itself when it registered: the service has not checked it.');
    });
  });

  describe('L6: bad inputs answered without a 500', () => {
    test('a return path outside Latin-1 on /sign-in', async ({ service: t, browser }) => {
      const res = await t.app.fetch(new Request(`${ORIGIN}/sign-in?return=${encodeURIComponent('/workflows/ünïcödé/☃')}`));
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('value="/workflows/%C3%BCn%C3%AFc%C3%B6d%C3%A9/%E2%98%83"');
      // …and a signed-in browser is sent there.
      const signedIn = await browser.follow('/sign-in/dev', { form: { email: OWNER, return: '/workflows/ünï' } });
      expect(signedIn.url).toBe(`${ORIGIN}/workflows/%C3%BCn%C3%AF`);
    });

    test('deeply nested JSON on /oauth/register', async ({ service: t }) => {
      const res = await t.call('POST', '/oauth/register', { rawBody: `${'['.repeat(3000)}${']'.repeat(3000)}` });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
    });
  });

  test('L7: a deleted account signs in again in the browser as a new account, and IDE OAuth works for it', async ({ service: t }) => {
    const email = 'phoenix@example.com';
    const first = createBrowser(t.app, ORIGIN);
    await first.follow('/sign-in/dev', { form: { email, return: '/' } });
    const token = await t.token(email);
    expect((await t.call('DELETE', '/v1/users/me', { token })).status).toBe(200);
    const again = createBrowser(t.app, ORIGIN);
    const signedIn = await again.follow('/sign-in/dev', { form: { email, return: '/' } });
    expect(signedIn.url).toBe(`${ORIGIN}/`);
    const session = [...again.jars.get(ORIGIN)!].map(([k, v]) => `${k}=${v}`).join('; ');
    const me = await t.app.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { cookie: session, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ me { email } }' }),
      }),
    );
    expect(((await me.json()) as any).data.me.email).toBe(email);
    // Its own deployment (a token issued after the deletion is the new account's), connected from an IDE.
    // (Token times are whole seconds: one issued in the second of the deletion would count as before it.)
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = await t.token(email, { expiresInSeconds: 3600 });
    const wf = await seedWorkflow(t, await userIdOf(t, fresh), { name: 'New' });
    const created = await t.call('POST', '/v1/deployments', { token: fresh, body: { name: 'Reborn', workflowIds: [wf] } });
    expect(created.status).toBe(201);
    const deploymentId = created.body.data.deploymentId as string;
    const clientId = await registerClient(t.app, ORIGIN);
    const { verifier, challenge } = pkcePair();
    const consent = await toConsent(
      again,
      authorizationUrl(ORIGIN, { client_id: clientId, code_challenge: challenge, resource: `${ORIGIN}/v1/mcp/${deploymentId}` }),
      email,
    );
    const back = await answerConsent(again, consent, 'confirm');
    const issued = await exchangeCode(t.app, ORIGIN, {
      clientId,
      verifier,
      code: new URL(back.url).searchParams.get('code'),
      url: new URL(back.url),
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const listed = await t.call('POST', `/v1/mcp/${deploymentId}`, {
      token: issued.body.access_token as string,
      headers: MCP_ACCEPT,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    expect(listed.status).toBe(200);
  });
});
