import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import {
  answerConsent,
  authorizationUrl,
  authorize,
  connectWithOAuth,
  createBrowser,
  exchangeCode,
  MemoryOAuthProvider,
  OAUTH_ENV,
  OAUTH_ORIGIN,
  ownerWithDeployments,
  pkcePair,
  registerClient,
  toConsent,
  tokenRequest,
} from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * The tool endpoint as an OAuth protected resource and the service's authorization server, driven
 * as an IDE does: the official SDK client given only the endpoint URL, the browser steps (sign-in,
 * consent) as plain HTTP requests following redirects and submitting the forms.
 */
const ORIGIN = OAUTH_ORIGIN;
const OWNER = 'owner@example.com';

const clock = new MovableClock();
const endpointOf = (id: string) => new URL(`${ORIGIN}/v1/mcp/${id}`);

/**
 * What the file's tests share: OWNER's token and three deployments of one workflow (two private,
 * one open to anonymous callers), a browser, and the calls they make of the service.
 */
async function seed(t: TestApp) {
  const {
    token,
    deploymentIds: [depA, depB, anon],
  } = await ownerWithDeployments(t, OWNER, ['Deployment A', 'Deployment B', { name: 'Open', allowAnonymous: true }], {
    name: 'Feature pipeline',
    description: 'Ships a feature.',
  });
  const browser = createBrowser(t.app, ORIGIN);

  const rpc = (id: string, accessToken: string | null, method = 'tools/list') =>
    t.call('POST', `/v1/mcp/${id}`, {
      token: accessToken,
      headers: MCP_ACCEPT,
      body: method === 'initialize' ? initializeRequest({ clientName: 'claude-code' }) : { jsonrpc: '2.0', id: 1, method, params: {} },
    });

  /** A raw authorization of the owner's for `resource`, confirmed. */
  const authorizeRaw = (resource: string, params: Record<string, string> = {}) =>
    authorize(t.app, browser, ORIGIN, { resource, email: OWNER, params });

  async function tokensFor(resource: string) {
    const authorization = await authorizeRaw(resource);
    const exchanged = await exchangeCode(t.app, ORIGIN, authorization, { resource });
    expect(exchanged.status).toBe(200);
    return { clientId: authorization.clientId, ...(exchanged.body as { access_token: string; refresh_token: string }) };
  }

  return { token, depA, depB, anon, browser, rpc, authorizeRaw, tokensFor };
}

/** The service on a clock the tests move. */
const test = serviceTestWith(OAUTH_ENV, { clock }).extend<{ world: Awaited<ReturnType<typeof seed>> }>({
  world: [async ({ service }, use) => use(await seed(service)), { scope: 'file' }],
});

describe('OAuth for MCP clients', () => {
  describe('discovery', () => {
    test('a private endpoint without a credential answers 401 pointing at its protected resource metadata', async ({
      world: { depA, rpc },
    }) => {
      const res = await rpc(depA, null, 'initialize');
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate')!;
      expect(challenge).toBe(`Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/v1/mcp/${depA}", scope="mcp"`);
      const bad = await rpc(depA, 'x'.repeat(43), 'initialize');
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata=/);
      expect(bad.body.error.message).toMatch(/access token is unknown, expired or revoked/);
    });

    test('serves the protected resource metadata (RFC 9728) and the authorization server metadata (RFC 8414)', async ({
      service: t,
      world: { depA },
    }) => {
      const prm = await t.call('GET', `/.well-known/oauth-protected-resource/v1/mcp/${depA}`);
      expect(prm.status).toBe(200);
      expect(prm.body).toMatchObject({ resource: `${ORIGIN}/v1/mcp/${depA}`, authorization_servers: [ORIGIN], scopes_supported: ['mcp'] });
      for (const path of [
        '/.well-known/oauth-authorization-server',
        `/.well-known/oauth-authorization-server/v1/mcp/${depA}`,
        '/.well-known/openid-configuration',
      ]) {
        const as = await t.call('GET', path);
        expect(as.status, path).toBe(200);
        expect(as.body).toMatchObject({
          issuer: ORIGIN,
          authorization_endpoint: `${ORIGIN}/oauth/authorize`,
          token_endpoint: `${ORIGIN}/oauth/token`,
          registration_endpoint: `${ORIGIN}/oauth/register`,
          revocation_endpoint: `${ORIGIN}/oauth/revoke`,
          code_challenge_methods_supported: ['S256'],
          authorization_response_iss_parameter_supported: true,
          client_id_metadata_document_supported: true,
        });
        expect(as.body.token_endpoint_auth_methods_supported).toEqual(['none']);
      }
    });

    test('discovery paths with nothing there answer JSON 404s, never HTML', async ({ service: t, world: { depA, anon } }) => {
      // An unknown deployment's path is answered like a private one's (below), so it reveals nothing.
      const unknown = await t.call('GET', '/.well-known/oauth-protected-resource/v1/mcp/dep_unknown', { headers: { accept: 'text/html' } });
      expect(unknown.status).toBe(200);
      expect(Object.keys(unknown.body).sort()).toEqual(
        Object.keys((await t.call('GET', `/.well-known/oauth-protected-resource/v1/mcp/${depA}`)).body).sort(),
      );
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/v1/mcp/%E0%A4%A',
        `/.well-known/oauth-protected-resource/v1/mcp/${anon}`,
        '/.well-known/anything-else',
      ]) {
        const res = await t.call('GET', path, { headers: { accept: 'text/html' } });
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toMatch(/application\/json/);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
    });

    test('a request with an ID token or an API key is served as before, never pushed into OAuth', async ({
      service: t,
      world: { token, depA, rpc },
    }) => {
      expect((await rpc(depA, token, 'initialize')).status).toBe(200);
      const key = (await t.call('POST', '/v1/api-keys', { token, body: { name: 'IDE', scope: 'mcp' } })).body.data.secret as string;
      const res = await rpc(depA, key, 'initialize');
      expect(res.status).toBe(200);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe('the whole flow with the SDK client, given only the endpoint URL', () => {
    test('401 → metadata → dynamic registration → development sign-in → consent → token → tools/list → refresh → revoke → 401', async ({
      service: t,
      world: { depA, rpc },
    }) => {
      const provider = new MemoryOAuthProvider();
      const ide = createBrowser(t.app, ORIGIN);
      const { client, html } = await connectWithOAuth(t.app, endpointOf(depA), provider, async (auth) => {
        // Registered dynamically, then sent to the authorization endpoint with PKCE S256 and the endpoint as resource.
        expect(provider.client?.client_id).toBeTruthy();
        expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
        expect(auth.searchParams.get('resource')).toBe(endpointOf(depA).href);
        const signIn = await ide.follow(auth.href);
        expect(signIn.url).toMatch(/\/sign-in\?return=%2Foauth%2Finteraction%2F/);
        const back = await answerConsent(ide, await toConsent(ide, auth.href, OWNER), 'confirm');
        expect(new URL(back.url).searchParams.get('iss')).toBe(ORIGIN);
        return back;
      });
      expect(html).toContain('Connect an application?');
      expect(html).toContain('<q><bdi>Test IDE</bdi></q>');
      expect(html).toContain('<strong>Deployment A</strong>');
      expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'mcp' });
      expect(provider.saved?.refresh_token).toBeTruthy();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);

      // An hour later the access token has expired: the client gets a 401, refreshes, and retries once.
      const before = { ...provider.saved! };
      clock.offsetMs = 61 * 60 * 1000;
      try {
        expect((await rpc(depA, before.access_token)).status).toBe(401);
        expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      } finally {
        clock.offsetMs = 0;
      }
      expect(provider.saved!.access_token).not.toBe(before.access_token);
      // The refresh token rotates.
      expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);

      // Revocation (RFC 7009) of the refresh token ends the whole grant: the access token stops working.
      const revoked = await t.app.fetch(
        new Request(`${ORIGIN}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: provider.saved!.refresh_token!, client_id: provider.client!.client_id }).toString(),
        }),
      );
      expect(revoked.status).toBe(200);
      const after = await rpc(depA, provider.saved!.access_token);
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      await client.close();
    });
  });

  describe('bad input', () => {
    test('a wrong PKCE verifier is refused (invalid_grant)', async ({ service: t, world: { depA, authorizeRaw } }) => {
      const authorization = await authorizeRaw(endpointOf(depA).href);
      const res = await exchangeCode(t.app, ORIGIN, authorization, { code_verifier: pkcePair().verifier });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/grant request is invalid/) });
    });

    test('the plain PKCE method is refused', async ({ service: t, world: { depA, browser } }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const res = await browser.request(
        authorizationUrl(ORIGIN, {
          client_id: clientId,
          code_challenge: 'a'.repeat(43),
          code_challenge_method: 'plain',
          resource: endpointOf(depA).href,
        }),
      );
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/not supported value of code_challenge_method/);
    });

    test('a reused authorization code is refused and revokes what it issued', async ({
      service: t,
      world: { depA, rpc, authorizeRaw },
    }) => {
      const authorization = await authorizeRaw(endpointOf(depA).href);
      const first = await exchangeCode(t.app, ORIGIN, authorization);
      expect(first.status).toBe(200);
      const again = await exchangeCode(t.app, ORIGIN, authorization);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect((await rpc(depA, first.body.access_token)).status).toBe(401);
    });

    test('a redirect URI that was not registered is refused without redirecting', async ({ service: t, world: { depA, browser } }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const res = await browser.request(
        authorizationUrl(ORIGIN, {
          client_id: clientId,
          resource: endpointOf(depA).href,
          redirect_uri: 'http://localhost:53682/elsewhere',
        }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      // A person sees a page of the service naming the application, not the library's JSON.
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('The application asked to return somewhere it did not register');
      expect(html).toMatch(/redirect_uri did not match any of the client&#39;s registered redirect_uris/);
      expect(html).toContain('<code>invalid_redirect_uri</code>');
      expect(html).toContain('<q><bdi>Raw client</bdi></q>');
    });

    test("a token bound to deployment A is refused on B's endpoint and on REST and GraphQL", async ({
      service: t,
      world: { depA, depB, rpc, tokensFor },
    }) => {
      const { access_token } = await tokensFor(endpointOf(depA).href);
      expect((await rpc(depA, access_token)).status).toBe(200);
      const onB = await rpc(depB, access_token);
      expect(onB.status).toBe(401);
      expect(onB.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(onB.body.error.message).toMatch(new RegExp(`issued for the tool endpoint of deployment '${depA}'`));
      const rest = await t.call('GET', '/v1/deployments', { token: access_token });
      expect(rest.status).toBe(403);
      expect(rest.body.error.message).toMatch(/opens the tool endpoint of one deployment only/);
      const gql = await t.graphql('{ me { id } }', {}, access_token);
      expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    });

    test('an expired access token is refused with invalid_token', async ({ world: { depA, rpc, tokensFor } }) => {
      const { access_token } = await tokensFor(endpointOf(depA).href);
      clock.offsetMs = 60 * 60 * 1000 + 1000;
      try {
        const res = await rpc(depA, access_token);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
        expect(res.body.error.message).toMatch(/expired/);
      } finally {
        clock.offsetMs = 0;
      }
    });

    test('reusing a rotated refresh token after its successor was used revokes the whole family', async ({
      service: t,
      world: { depA, rpc, tokensFor },
    }) => {
      const issued = await tokensFor(endpointOf(depA).href);
      const refresh = (rt: string) =>
        tokenRequest(t.app, ORIGIN, { grant_type: 'refresh_token', refresh_token: rt, client_id: issued.clientId });
      const rotated = await refresh(issued.refresh_token);
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh_token).not.toBe(issued.refresh_token);
      // The successor is used, so the first token can no longer be a retry of a lost answer.
      const next = await refresh(rotated.body.refresh_token);
      expect(next.status).toBe(200);
      const reuse = await refresh(issued.refresh_token);
      expect(reuse.status).toBe(400);
      expect(reuse.body).toMatchObject({ error: 'invalid_grant' });
      // The family is gone: the newest refresh token and the access tokens no longer work.
      expect((await refresh(next.body.refresh_token)).status).toBe(400);
      expect((await rpc(depA, next.body.access_token)).status).toBe(401);
    });

    test('registration with a javascript: or a non-loopback http redirect URI is refused', async ({ service: t }) => {
      for (const [uri, message] of [
        ['javascript:alert(1)', /scheme 'javascript:' is not allowed/],
        ['http://ide.example.com/callback', /uses http on a host that is not loopback/],
      ] as const) {
        const res = await t.call('POST', '/oauth/register', {
          body: { client_name: 'Bad', redirect_uris: [uri], token_endpoint_auth_method: 'none' },
        });
        expect(res.status, uri).toBe(400);
        expect(res.body).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(message) });
      }
      for (const uri of [
        'http://127.0.0.1:33418/cb',
        'http://[::1]:1/cb',
        'cursor://anysphere.cursor-retrieval/oauth/callback',
        'vscode://vscode.github-authentication/did-authenticate',
        'https://ide.example.com/cb',
      ]) {
        expect(
          (
            await t.call('POST', '/oauth/register', {
              body: { client_name: 'Good', redirect_uris: [uri], token_endpoint_auth_method: 'none' },
            })
          ).status,
          uri,
        ).toBe(201);
      }
    });

    test('a denied consent sends the client access_denied, with its state, and issues nothing', async ({
      service: t,
      world: { depA, browser },
    }) => {
      const { url } = await authorize(t.app, browser, ORIGIN, {
        resource: endpointOf(depA).href,
        email: OWNER,
        choice: 'deny',
        params: { state: 'deny-state' },
      });
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.get('error_description')).toMatch(/denied/);
      expect(url.searchParams.get('state')).toBe('deny-state');
      expect(url.searchParams.get('code')).toBeNull();
    });

    test('state comes back exactly as sent, so a client detects a mismatch', async ({ world: { depA, authorizeRaw } }) => {
      const { url } = await authorizeRaw(endpointOf(depA).href, { state: 'exact-state-value' });
      expect(url.searchParams.get('state')).toBe('exact-state-value');
      expect(url.searchParams.get('state')).not.toBe('another-state');
    });

    test('a resource that is not one of the tool endpoints is refused', async ({ service: t, world: { browser } }) => {
      const clientId = await registerClient(t.app, ORIGIN);
      const res = await browser.request(authorizationUrl(ORIGIN, { client_id: clientId, resource: `${ORIGIN}/v1/workflows` }));
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_target');
    });
  });
});
