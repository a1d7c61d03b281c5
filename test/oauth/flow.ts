import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { App } from '../../src/app.js';

/** The loopback address an IDE listens on for the authorization response (never contacted: the test reads the redirect). */
export const REDIRECT_URI = 'http://localhost:53682/callback';

/** A browser for the service: a cookie jar, following redirects on the service's origin. */
export function createBrowser(app: App, origin: string) {
  const jar = new Map<string, string>();
  function remember(response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }
  async function request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers = new Headers();
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', origin);
    }
    const response = await app.fetch(new Request(new URL(url, origin), { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' }));
    remember(response);
    return response;
  }
  /** Follows redirects within the service; stops at a page (200 or an error) or a redirect elsewhere. */
  async function follow(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ response: Response; url: string }> {
    let response = await request(url, init);
    let at = new URL(url, origin).href;
    for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
      const location = new URL(response.headers.get('location')!, at).href;
      if (!location.startsWith(`${origin}/`)) return { response, url: location };
      at = location;
      response = await request(location);
    }
    return { response, url: at };
  }
  return { request, follow, jar };
}

export type TestBrowser = ReturnType<typeof createBrowser>;

/** Signs in on the development sign-in page the authorization sent the browser to, and returns the next page. */
export async function devSignIn(browser: TestBrowser, page: { response: Response; url: string }, email: string) {
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
    return { client_name: 'Test IDE', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...this.metadata };
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
      body: JSON.stringify({ client_name: 'Raw client', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata }),
    }),
  );
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 || !body.client_id) throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
  return body.client_id;
}

export function authorizationUrl(origin: string, params: Record<string, string>): string {
  return `${origin}/oauth/authorize?${new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'mcp', ...params }).toString()}`;
}

export async function tokenRequest(app: App, origin: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const response = await app.fetch(new Request(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }));
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
