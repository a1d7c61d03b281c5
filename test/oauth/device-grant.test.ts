import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createClientMetadataPolicy } from '../../src/oauth/client-metadata.js';
import { loadKnownClientDocuments } from '../../src/oauth/known-clients.js';
import type { TestApp } from '../helpers/app.js';
import { createBrowser, registerClient, tokenRequest } from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * The device authorization grant (RFC 8628) belongs to the command-line tool alone: dynamic
 * registration refuses it, client ID metadata documents (fetched, shipped or an operator's) lose it,
 * the device authorization endpoint refuses every other client, and a client polling faster than
 * the interval is told `slow_down`.
 */
const ORIGIN = 'http://127.0.0.1';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const VSCODE = 'https://vscode.dev/oauth/client-metadata.json';
const OPERATOR_CLIENT = 'https://editor.example.com/oauth/client.json';

/** The folder of the operator's pinned documents, made before the service starts. */
let documentsDir = '';

/** The service, with a folder of pinned client documents made before it and removed after it. */
const test = serviceTestWith(
  { PUBLIC_BASE_URL: `${ORIGIN}/v1`, OAUTH_CLIENT_METADATA_FETCH: 'off' },
  {
    peers: async () => {
      // An operator's pinned document that lists the device grant, as VS Code's own does.
      const documents = mkdtempSync(join(tmpdir(), 'wf-client-docs-'));
      writeFileSync(
        join(documents, 'editor.json'),
        JSON.stringify({
          client_id: OPERATOR_CLIENT,
          client_name: 'Example Editor',
          redirect_uris: ['http://127.0.0.1/callback'],
          grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
      documentsDir = documents;
      return { env: { OAUTH_CLIENT_METADATA_DIR: documents }, close: async () => rmSync(documents, { recursive: true, force: true }) };
    },
  },
).extend<{ documents: string }>({
  // The folder the service was started with (so after the service).
  documents: [async ({ service: _ }, use) => use(documentsDir), { scope: 'file' }],
});

describe('the device grant', () => {
  async function deviceAuthorization(t: TestApp, form: Record<string, string>) {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/oauth/device/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  test('dynamic registration refuses the device grant, alone or among others', async ({ service: t }) => {
    for (const grants of [[DEVICE_GRANT], ['authorization_code', 'refresh_token', DEVICE_GRANT]]) {
      const response = await t.app.fetch(
        new Request(`${ORIGIN}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Phisher',
            redirect_uris: ['http://127.0.0.1/callback'],
            token_endpoint_auth_method: 'none',
            grant_types: grants,
            response_types: ['code'],
          }),
        }),
      );
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_client_metadata');
      expect(body.error_description).toContain('command-line tool');
    }
  });

  test('no client but the command-line tool may start a device authorization', async ({ service: t }) => {
    const registered = await registerClient(t.app, ORIGIN);
    for (const clientId of [registered, VSCODE, OPERATOR_CLIENT, 'https://claude.ai/oauth/claude-code-client-metadata', 'unknown']) {
      const refused = await deviceAuthorization(t, { client_id: clientId, scope: 'mcp', resource: `${ORIGIN}/v1/mcp/dep_x` });
      expect(refused.status, clientId).toBe(400);
      expect(refused.body.error, clientId).toBe('unauthorized_client');
      expect(refused.body.device_code).toBeUndefined();
    }
    // Without a client_id in the form (a client trying another way of naming itself).
    expect((await deviceAuthorization(t, { scope: 'api' })).body.error).toBe('unauthorized_client');
    const started = await deviceAuthorization(t, { client_id: 'wfctl', scope: 'api', resource: `${ORIGIN}/v1` });
    expect(started.status).toBe(200);
    expect(started.body.device_code).toEqual(expect.any(String));
  });

  test("the code's confirmation page names the client that asked", async ({ service: t }) => {
    const started = await deviceAuthorization(t, { client_id: 'wfctl', scope: 'api', resource: `${ORIGIN}/v1` });
    // The code's address answers a form that posts itself (with its anti-forgery field), as a browser would.
    const browser = createBrowser(t.app, ORIGIN);
    const landing = await browser.follow(started.body.verification_uri_complete);
    const form = await landing.response.text();
    const fields = Object.fromEntries(
      [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const page = await browser.follow('/oauth/device', { form: fields });
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain(started.body.user_code);
    expect(html).toContain('<strong>Workflow command-line tool (wfctl)</strong> asks to act on your account');
    expect(html).toContain('Continue only if you started the sign-in of Workflow command-line tool (wfctl) yourself');
  });

  test('client ID metadata documents, pinned or fetched, never give a client the device grant', async ({ documents }) => {
    const policy = createClientMetadataPolicy({ allowLoopback: false, fetch: false, known: loadKnownClientDocuments(documents) });
    for (const clientId of [VSCODE, OPERATOR_CLIENT]) {
      const document = (await (await policy.fetch(clientId)).json()) as { client_id: string; grant_types: string[] };
      expect(document.client_id).toBe(clientId);
      expect(document.grant_types).toEqual(['authorization_code', 'refresh_token']);
    }
  });

  test('polling faster than the interval is told slow_down, and keeps being told while it does', async ({ service: t }) => {
    const started = await deviceAuthorization(t, { client_id: 'wfctl', scope: 'api', resource: `${ORIGIN}/v1` });
    expect(started.status).toBe(200);
    const poll = () => tokenRequest(t.app, ORIGIN, { grant_type: DEVICE_GRANT, device_code: started.body.device_code, client_id: 'wfctl' });
    const first = await poll();
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('authorization_pending');
    for (let i = 0; i < 3; i++) {
      const rapid = await poll();
      expect(rapid.status).toBe(400);
      expect(rapid.body.error).toBe('slow_down');
    }
    // Another device code has its own pace.
    const other = await deviceAuthorization(t, { client_id: 'wfctl', scope: 'api', resource: `${ORIGIN}/v1` });
    const otherPoll = await tokenRequest(t.app, ORIGIN, {
      grant_type: DEVICE_GRANT,
      device_code: other.body.device_code,
      client_id: 'wfctl',
    });
    expect(otherPoll.body.error).toBe('authorization_pending');
  });
});
