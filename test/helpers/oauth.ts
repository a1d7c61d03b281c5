import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { TestApp } from './app.js';
import { seedWorkflow, userIdOf, type SeedWorkflowOptions } from './seed.js';

/** The service's origin in the OAuth tests, and the environment its authorization server runs with there. */
export const OAUTH_ORIGIN = 'http://127.0.0.1';
const OAUTH_SESSION_SECRET = 'a-test-session-secret-of-at-least-32-characters';
export const OAUTH_ENV = { MCP_SESSION_SECRET: OAUTH_SESSION_SECRET, PUBLIC_BASE_URL: `${OAUTH_ORIGIN}/v1` };

/**
 * A user (signed in with `email`) owning one workflow and a deployment of it for each entry of
 * `deployments` (its name and other fields of POST /v1/deployments): the user's token and the
 * deployments' ids, in order.
 */
export async function ownerWithDeployments<const D extends ReadonlyArray<string | Record<string, unknown>>>(
  t: TestApp,
  email: string,
  deployments: D,
  workflow: SeedWorkflowOptions = { name: 'Pipeline' },
): Promise<{ token: string; deploymentIds: { [K in keyof D]: string } }> {
  const token = await t.token(email);
  const wf = await seedWorkflow(t, await userIdOf(t, token), workflow);
  const deploymentIds: string[] = [];
  for (const deployment of deployments) {
    const body = typeof deployment === 'string' ? { name: deployment } : deployment;
    const created = await t.call('POST', '/v1/deployments', { token, body: { ...body, workflowIds: [wf] } });
    if (created.status !== 201) throw new Error(`deployment not created: ${JSON.stringify(created.body)}`);
    deploymentIds.push(created.body.data.deploymentId as string);
  }
  return { token, deploymentIds: deploymentIds as { [K in keyof D]: string } };
}

/** The loopback address an IDE listens on for the authorization response (never contacted: the test reads the redirect). */
export const REDIRECT_URI = 'http://localhost:53682/callback';

/**
 * A browser: a cookie jar per origin, the service's origin answered in process, any other loopback
 * origin (a real OpenID provider the test started) over the network. Follows redirects until it
 * reaches a page or a redirect to somewhere it does not serve (the client's redirect URI).
 */
export function createBrowser(app: App, origin: string, otherOrigins: string[] = []) {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (o: string) => jars.get(o) ?? jars.set(o, new Map()).get(o)!;
  const served = (url: URL) => url.origin === origin || otherOrigins.includes(url.origin);
  function remember(jar: Map<string, string>, response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(cookie) || /expires=Thu, 01 Jan 1970/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }
  async function request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url, origin);
    const jar = jarOf(target.origin);
    const headers = new Headers();
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', target.origin);
    }
    const req = new Request(target, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    const response = target.origin === origin ? await app.fetch(req) : await fetch(req);
    remember(jar, response);
    return response;
  }
  async function follow(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ response: Response; url: string }> {
    let at = new URL(url, origin).href;
    let response = await request(at, init);
    for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
      const location = new URL(response.headers.get('location')!, at);
      if (!served(location)) return { response, url: location.href };
      at = location.href;
      response = await request(at);
    }
    return { response, url: at };
  }
  return { request, follow, jars };
}

export type TestBrowser = ReturnType<typeof createBrowser>;

/** Signs in on the development sign-in page the authorization sent the browser to, and returns the next page. */
async function devSignIn(browser: TestBrowser, page: { response: Response; url: string }, email: string) {
  const html = await page.response.text();
  const returnTo = /name="return" value="([^"]*)"/.exec(html)?.[1]?.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c)));
  if (!returnTo) throw new Error(`not the development sign-in page: ${html.slice(0, 300)}`);
  return browser.follow('/sign-in/dev', { form: { email, return: returnTo } });
}

/** Submits the consent page's Allow or Deny form; returns where the browser was sent (the client's redirect URI). */
export async function answerConsent(browser: TestBrowser, page: { response: Response; url: string }, choice: 'confirm' | 'deny') {
  const html = await page.response.text();
  const action = new RegExp(`action="([^"]*/${choice})"`).exec(html)?.[1];
  if (!action) throw new Error(`not the consent page (${page.response.status}): ${html.slice(0, 300)}`);
  return { ...(await browser.follow(action, { form: {} })), html };
}

/** An IDE's side of the OAuth flow for the SDK: everything kept in memory, the authorization URL recorded. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    readonly metadata: Partial<OAuthClientMetadata> = {},
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test IDE',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...this.metadata,
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** PKCE S256: a verifier and its challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Follows an authorization URL to the consent page, signing in on the development page when asked. */
export async function toConsent(browser: TestBrowser, authorizationUrl: string, email: string) {
  let page = await browser.follow(authorizationUrl);
  if (page.url.includes('/sign-in')) page = await devSignIn(browser, page, email);
  return page;
}

/** Registers a public client by dynamic registration (RFC 7591) and returns its client_id. */
export async function registerClient(app: App, origin: string, metadata: Record<string, unknown> = {}): Promise<string> {
  const response = await app.fetch(
    new Request(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Raw client',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        ...metadata,
      }),
    }),
  );
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 || !body.client_id) throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
  return body.client_id;
}

/**
 * The authorization endpoint's address for `params`; unless given, a fresh PKCE S256 challenge, the
 * state `s`, the redirect URI of the test IDE and the `mcp` scope.
 */
export function authorizationUrl(origin: string, params: Record<string, string>): string {
  const defaults = {
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'mcp',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 's',
  };
  return `${origin}/oauth/authorize?${new URLSearchParams({ ...defaults, ...params }).toString()}`;
}

export async function tokenRequest(
  app: App,
  origin: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await app.fetch(
    new Request(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** What a raw authorization came back with: its client, its PKCE verifier, the code (none when denied) and the redirect. */
export interface Authorization {
  clientId: string;
  verifier: string;
  code: string | null;
  url: URL;
}

/**
 * An authorization as an IDE makes it without the SDK: a client registered dynamically (unless
 * `clientId` names one), PKCE S256,
 * the browser through the development sign-in and the consent page, answered with `choice`.
 */
export async function authorize(
  app: App,
  browser: TestBrowser,
  origin: string,
  options: { resource: string; email: string; choice?: 'confirm' | 'deny'; params?: Record<string, string>; clientId?: string },
): Promise<Authorization> {
  const clientId = options.clientId ?? (await registerClient(app, origin));
  const { verifier, challenge } = pkcePair();
  const consent = await toConsent(
    browser,
    authorizationUrl(origin, { client_id: clientId, code_challenge: challenge, resource: options.resource, ...options.params }),
    options.email,
  );
  const url = new URL((await answerConsent(browser, consent, options.choice ?? 'confirm')).url);
  return { clientId, verifier, code: url.searchParams.get('code'), url };
}

/** Exchanges an authorization's code at the token endpoint; `form` adds to or replaces the grant's fields. */
export function exchangeCode(app: App, origin: string, authorization: Authorization, form: Record<string, string> = {}) {
  return tokenRequest(app, origin, {
    grant_type: 'authorization_code',
    code: authorization.code ?? '',
    code_verifier: authorization.verifier,
    redirect_uri: REDIRECT_URI,
    client_id: authorization.clientId,
    ...form,
  });
}

/**
 * Connects the official SDK client to a tool endpoint as an IDE does: the first attempt is refused
 * with 401, `drive` takes the browser from the authorization URL to the client's redirect URI, the
 * code is exchanged, and a second client connects with the tokens. Returns it and the consent page.
 */
export async function connectWithOAuth(
  app: App,
  endpoint: URL,
  provider: MemoryOAuthProvider,
  drive: (authorizationUrl: URL) => Promise<{ url: string; html: string }>,
) {
  const fetchFn = (url: string | URL, init?: RequestInit) => app.fetch(new Request(url, init));
  const first = new StreamableHTTPClientTransport(endpoint, { fetch: fetchFn, authProvider: provider });
  await expect(new Client({ name: 'claude-code', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const back = await drive(provider.authorizationUrl!);
  const redirect = new URL(back.url);
  expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
  await first.finishAuth(redirect.searchParams.get('code')!);
  const client = new Client({ name: 'claude-code', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { fetch: fetchFn, authProvider: provider }));
  return { client, html: back.html };
}

/**
 * Connects a registered client to a deployment of the user's through the whole flow (development
 * sign-in, consent, code exchange) and returns the connected app's id (its grant).
 */
export async function connectApp(t: { app: App; config: { publicBaseUrl: string } }, email: string, deploymentId: string): Promise<string> {
  const origin = new URL(t.config.publicBaseUrl).origin;
  const browser = createBrowser(t.app, origin);
  const authorization = await authorize(t.app, browser, origin, { resource: `${t.config.publicBaseUrl}/mcp/${deploymentId}`, email });
  if (!authorization.code) throw new Error('no authorization code');
  const issued = await exchangeCode(t.app, origin, authorization);
  if (issued.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(issued.body)}`);
  // The grant's id, read back as the user (the browser's dashboard session).
  const session = [...browser.jars.get(origin)!].map(([k, v]) => `${k}=${v}`).join('; ');
  const gql = await t.app.fetch(
    new Request(`${origin}/graphql`, {
      method: 'POST',
      headers: { cookie: session, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ connectedApps { connectedAppId clientId } }' }),
    }),
  );
  const apps = ((await gql.json()) as { data: { connectedApps: { connectedAppId: string; clientId: string }[] } }).data.connectedApps;
  return apps.find((a) => a.clientId === authorization.clientId)!.connectedAppId;
}
