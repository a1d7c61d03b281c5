import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedWorkflow, userIdOf } from '../helpers/seed.js';
import { freePort, startProcess, stopProcess } from '../helpers/process.js';
import { serviceTestWith } from '../helpers/service-test.js';
import {
  answerConsent,
  authorizationUrl,
  connectWithOAuth,
  createBrowser,
  MemoryOAuthProvider,
  REDIRECT_URI,
  toConsent,
  type TestBrowser,
} from '../helpers/oauth.js';

/**
 * The two other ways in: registration by a client ID metadata document (served on loopback, which
 * the test-only setting permits), and signing the user in at a real OpenID provider running in its
 * own process.
 */
const ORIGIN = 'http://127.0.0.1';
const SECRET = 'a-test-session-secret-of-at-least-32-characters';

/** The error page a person sees: its OAuth error code and its text. */
async function errorPage(res: Response): Promise<{ error: string | undefined; text: string }> {
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await res.text();
  return {
    error: /Error code: <code>([^<]+)<\/code>/.exec(html)?.[1],
    text: html.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c))),
  };
}

/** What the loopback server of client ID metadata documents answers per path: a body, a delay. */
const documents = new Map<string, { body: string; delayMs?: number }>();

/**
 * What the first describe's tests share: the loopback server of documents (closed after them), a
 * private deployment of the owner's, a browser, and the addresses and calls they use.
 */
async function seed(t: TestApp, port: number) {
  const docUrl = (path: string) => `https://127.0.0.1:${port}${path}`;
  const metadataOf = (path: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: docUrl(path),
      client_name: 'Metadata IDE',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
  const token = await t.token('owner@example.com');
  const wf = await seedWorkflow(t, await userIdOf(t, token), { name: 'Feature pipeline' });
  const dep: string = (await t.call('POST', '/v1/deployments', { token, body: { name: 'By document', workflowIds: [wf] } })).body.data
    .deploymentId;
  const browser = createBrowser(t.app, ORIGIN);

  async function authorizeWith(clientId: string) {
    const res = await browser.request(authorizationUrl(ORIGIN, { client_id: clientId, resource: `${ORIGIN}/v1/mcp/${dep}` }));
    return { status: res.status, ...(await errorPage(res)) };
  }

  return { port, docUrl, metadataOf, dep, browser, authorizeWith };
}

/** A service that fetches client ID metadata documents from loopback (the test-only setting). */
const test = serviceTestWith({ MCP_SESSION_SECRET: SECRET, PUBLIC_BASE_URL: `${ORIGIN}/v1`, OAUTH_CLIENT_METADATA_LOOPBACK: 'on' }).extend<{
  world: Awaited<ReturnType<typeof seed>>;
}>({
  world: [
    async ({ service: t }, use) => {
      const server: Server = createServer((req, res) => {
        const doc = documents.get(req.url ?? '');
        if (!doc) {
          res.writeHead(404).end();
          return;
        }
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(doc.body), doc.delayMs ?? 0);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        await use(await seed(t, (server.address() as AddressInfo).port));
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
    { scope: 'file' },
  ],
});

describe('client ID metadata documents', () => {
  test('the SDK client registers by its metadata document: sign-in, consent naming it, tools/list', async ({
    service: t,
    world: { docUrl, metadataOf, dep, browser },
  }) => {
    documents.set('/ide.json', { body: metadataOf('/ide.json') });
    const provider = new MemoryOAuthProvider({}, docUrl('/ide.json'));
    const { client, html } = await connectWithOAuth(t.app, new URL(`${ORIGIN}/v1/mcp/${dep}`), provider, async (auth) => {
      expect(auth.searchParams.get('client_id')).toBe(docUrl('/ide.json'));
      return answerConsent(browser, await toConsent(browser, auth.href, 'owner@example.com'), 'confirm');
    });
    expect(html).toContain('<q><bdi>Metadata IDE</bdi></q>');
    expect(html).toContain('Name published by <strong>127.0.0.1:');
    expect(html).toContain('By document');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  test('a client_id that is not an https URL is not fetched', async ({ world: { port, metadataOf, authorizeWith } }) => {
    documents.set('/plain.json', { body: metadataOf('/plain.json') });
    const res = await authorizeWith(`http://127.0.0.1:${port}/plain.json`);
    expect(res.status).toBe(400);
    expect(res.error).toBe('invalid_client');
  });

  test('a document too large (over 5 KiB) is refused', async ({ world: { docUrl, metadataOf, authorizeWith } }) => {
    documents.set('/large.json', { body: metadataOf('/large.json', { padding: 'x'.repeat(6 * 1024) }) });
    const res = await authorizeWith(docUrl('/large.json'));
    expect(res.error).toBe('invalid_client');
    expect(res.text).toMatch(/could not be identified[\s\S]*client_id metadata document fetch failed/);
  });

  test('a document that takes too long (over 2.5 s) is refused', async ({ world: { docUrl, metadataOf, authorizeWith } }) => {
    documents.set('/slow.json', { body: metadataOf('/slow.json'), delayMs: 3500 });
    const res = await authorizeWith(docUrl('/slow.json'));
    expect(res.error).toBe('invalid_client');
    expect(res.text).toMatch(/fetch failed/);
  });

  test('a document naming another client_id is refused', async ({ world: { docUrl, metadataOf, authorizeWith } }) => {
    documents.set('/other.json', {
      body: JSON.stringify({ ...JSON.parse(metadataOf('/other.json')), client_id: docUrl('/someone-else.json') }),
    });
    const res = await authorizeWith(docUrl('/other.json'));
    // Refused by the service's own check of the document, before the library sees it.
    expect(res.error).toBe('invalid_client');
    expect(res.text).toMatch(/could not be identified/);
  });

  test('a document whose redirect URI breaks the registration rules is refused', async ({
    world: { docUrl, metadataOf, authorizeWith },
  }) => {
    documents.set('/js.json', { body: metadataOf('/js.json', { redirect_uris: ['http://ide.example.com/cb'] }) });
    const res = await authorizeWith(docUrl('/js.json'));
    expect(res.error).toBe('invalid_client');
  });
});

// The tests below start services of their own, each with the settings it is about: a file has one
// fixture service (vitest keeps a file-scoped fixture by its name, once per file), the one above.
describe('client ID metadata documents outside tests', () => {
  it('documents on private or loopback addresses are refused before any fetch', async () => {
    const t = await startTestApp({ env: { MCP_SESSION_SECRET: SECRET, PUBLIC_BASE_URL: `${ORIGIN}/v1` } });
    try {
      const browser = createBrowser(t.app, ORIGIN);
      for (const clientId of [
        'https://127.0.0.1:9/ide.json',
        'https://localhost/ide.json',
        'https://10.1.2.3/ide.json',
        'https://192.168.0.10/ide.json',
        'https://[::1]/ide.json',
      ]) {
        const res = await browser.request(authorizationUrl(ORIGIN, { client_id: clientId, resource: `${ORIGIN}/v1/mcp/dep_x` }));
        expect(res.status, clientId).toBe(400);
        const page = await errorPage(res);
        expect(page.error, clientId).toBe('invalid_client');
        expect(page.text, clientId).toMatch(/fetch not allowed/);
      }
    } finally {
      await t.close();
    }
  });
});

describe('sign-in at a real OpenID provider in its own process', { timeout: 120_000 }, () => {
  it('401 → registration → sign-in at the provider → consent → tools/list', async () => {
    const providerPort = await freePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    const clientSecret = `secret-${Math.random().toString(36).slice(2)}${Date.now()}`;
    const idp = await startProcess(
      ['test/browser/oidc-provider.mjs', String(providerPort), 'mcp-service', clientSecret, `${ORIGIN}/sign-in/callback`],
      {},
      /oidc provider ready/,
    );
    let t: TestApp | undefined;
    try {
      t = await startTestApp({
        env: {
          MCP_SESSION_SECRET: SECRET,
          PUBLIC_BASE_URL: `${ORIGIN}/v1`,
          OIDC_ISSUER: issuer,
          OIDC_AUDIENCE: 'mcp-service',
          OIDC_JWKS_URL: `${issuer}/jwks`,
          OIDC_CLIENT_ID: 'mcp-service',
          OIDC_CLIENT_SECRET: clientSecret,
          DEV_AUTH: 'off',
        },
      });
      const app = t;
      /** Signs in at the provider's own pages (any login, any password) and gives consent there. */
      const signInAtProvider = async (browser: TestBrowser, start: string) => {
        let page = await browser.follow(start);
        expect(page.url.startsWith(issuer)).toBe(true);
        const login = await page.response.text();
        const loginAction = /<form[^>]*action="([^"]+)"/.exec(login)![1]!;
        page = await browser.follow(new URL(loginAction, page.url).href, {
          form: { prompt: 'login', login: 'grace@example.com', password: 'any' },
        });
        if (page.url.startsWith(issuer)) {
          const consent = await page.response.text();
          const consentAction = /<form[^>]*action="([^"]+)"/.exec(consent)![1]!;
          page = await browser.follow(new URL(consentAction, page.url).href, { form: { prompt: 'consent' } });
        }
        return page;
      };
      // Grace signs in to the dashboard once and creates a private deployment there.
      const dashboard = createBrowser(app.app, ORIGIN, [issuer]);
      const home = await signInAtProvider(dashboard, '/sign-in?return=/v1/deployments');
      expect(home.url).toBe(`${ORIGIN}/v1/deployments`);
      const cookie = [...dashboard.jars.get(ORIGIN)!].map(([k, v]) => `${k}=${v}`).join('; ');
      const gql = async (query: string, variables: Record<string, unknown> = {}) =>
        (
          await app.app.fetch(
            new Request(`${ORIGIN}/graphql`, {
              method: 'POST',
              headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
              body: JSON.stringify({ query, variables }),
            }),
          )
        ).json() as Promise<any>;
      const me = await gql('{ me { userId email } }');
      expect(me.data.me.email).toBe('grace@example.com');
      const wf = await seedWorkflow(app, me.data.me.userId, { name: 'Provider pipeline' });
      const created = await gql('mutation($w: [String!]!) { createDeployment(name: "Grace tools", workflowIds: $w) { deploymentId } }', {
        w: [wf],
      });
      const dep = created.data.createDeployment.deploymentId as string;

      // The IDE, in a browser with no session yet: the authorization server sends it to the provider.
      const ide = createBrowser(app.app, ORIGIN, [issuer]);
      const { client, html } = await connectWithOAuth(
        app.app,
        new URL(`${ORIGIN}/v1/mcp/${dep}`),
        new MemoryOAuthProvider(),
        async (auth) => {
          const consent = await signInAtProvider(ide, auth.href);
          expect(consent.url).toMatch(new RegExp(`^${ORIGIN}/oauth/interaction/`));
          return answerConsent(ide, consent, 'confirm');
        },
      );
      expect(html).toContain('Grace tools');
      expect(html).toContain('grace@example.com');
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([expect.stringMatching(/^provider_pipeline/)]);
      await client.close();

      // The callback with a state that is not the one this browser started with is refused.
      const forged = await ide.request(`/sign-in/callback?code=abc&state=forged&iss=${encodeURIComponent(issuer)}`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).toMatch(/This sign-in has expired/);
    } finally {
      await t?.close();
      await stopProcess(idp.child);
    }
  });
});
