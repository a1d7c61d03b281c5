import { createHash } from 'node:crypto';
import type { ClientMetadata, KoaContextWithOIDC } from 'oidc-provider';
import type { TextReply } from '../http/text-response.js';
import { choicePage, page } from './pages.js';
import { DEVICE_CODE_GRANT } from './redirect-uris.js';

/**
 * The command-line tool (cli/, `wfctl`) as a first-party client of the authorization server
 * (docs/cli.md, "Signing in"; docs/decisions.md, "Command-line tool"):
 *
 * - one client registered with the server itself (not by dynamic registration or a metadata
 *   document): a native public client whose loopback redirect may use any port (RFC 8252), which
 *   may also use the device authorization grant (RFC 8628) for SSH sessions and containers;
 * - the API as a resource of its own: `resource` = the service's base URL (`PUBLIC_BASE_URL`),
 *   scope `api`. A token for it opens REST and GraphQL as its user, like an API key of scope
 *   `api`, and no tool endpoint. Only this client may ask for it; other clients keep getting tokens
 *   bound to one deployment's tool endpoint;
 * - the device flow's pages (enter the code, confirm it, done) drawn as the service's other pages.
 */

const CLI_CLIENT_ID = 'wfctl';
export const API_SCOPE = 'api';
/**
 * Whether `clientId` may use the device authorization grant (RFC 8628): the command-line tool alone.
 * A device code page is where a phishing link would send a victim, so no other client may start
 * one. Dynamic registration refuses the grant, client ID metadata documents (fetched or pinned) lose
 * it, and the device authorization endpoint refuses any other client (docs/cli.md, "Signing in").
 */
export function mayUseDeviceGrant(clientId: string | null | undefined): boolean {
  return clientId === CLI_CLIENT_ID;
}

/** RFC 8628 §3.2: without an `interval` in the answer a client waits 5 seconds between polls. */
const POLL_INTERVAL_SECONDS = 5;
/** Network jitter can bring two polls that were sent an interval apart closer together. */
const POLL_LEEWAY_MS = 1000;
/** Device codes one instance paces at a time (a code lives 10 minutes). */
const PACED_CODES_MAX = 10_000;
const PACED_CODE_TTL_MS = 10 * 60 * 1000;

/**
 * RFC 8628 §3.5: a client polling the token endpoint faster than the interval is told `slow_down`,
 * and its interval grows by 5 seconds for this and every later poll. Kept per device code (by its
 * digest) in this instance; bounded, oldest first out.
 */
export function createDevicePollPacer(now: () => number = () => performance.now()) {
  const codes = new Map<string, { lastPollAt: number; intervalSeconds: number; firstSeenAt: number }>();
  return {
    /** True when this poll of `deviceCode` comes too soon (and the code's interval has grown). */
    tooSoon(deviceCode: string): boolean {
      const key = createHash('sha256').update(deviceCode).digest('base64url');
      const at = now();
      const state = codes.get(key);
      if (!state || at - state.firstSeenAt > PACED_CODE_TTL_MS) {
        codes.delete(key);
        codes.set(key, { lastPollAt: at, intervalSeconds: POLL_INTERVAL_SECONDS, firstSeenAt: at });
        while (codes.size > PACED_CODES_MAX) codes.delete(codes.keys().next().value!);
        return false;
      }
      const early = at - state.lastPollAt < state.intervalSeconds * 1000 - POLL_LEEWAY_MS;
      state.lastPollAt = at;
      if (early) state.intervalSeconds += 5;
      return early;
    },
  };
}

/** The resource identifier of the REST and GraphQL API: the service's base URL. */
function apiResource(publicBaseUrl: string): string {
  return publicBaseUrl;
}

export function isApiResource(publicBaseUrl: string, resource: string | null | undefined): boolean {
  return resource === apiResource(publicBaseUrl) || resource === `${apiResource(publicBaseUrl)}/`;
}

/** The command-line tool's registration, fixed by the service. */
export const cliClient: ClientMetadata = {
  client_id: CLI_CLIENT_ID,
  client_name: 'Workflow command-line tool (wfctl)',
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
  response_types: ['code'],
  // Loopback: any port matches (the library applies RFC 8252's rule to native clients).
  redirect_uris: ['http://127.0.0.1/callback'],
  scope: `${API_SCOPE} offline_access`,
};

/** What a token for the API resource is, when the first-party client asks for it (null: not this resource). */
export function apiResourceServerInfo(
  ctx: KoaContextWithOIDC,
  publicBaseUrl: string,
  resource: string,
  accessTokenTTL: number,
): { scope: string; audience: string; accessTokenTTL: number; accessTokenFormat: 'opaque' } | null {
  if (!isApiResource(publicBaseUrl, resource)) return null;
  if (ctx.oidc.client?.clientId !== CLI_CLIENT_ID) return null;
  return { scope: API_SCOPE, audience: apiResource(publicBaseUrl), accessTokenTTL, accessTokenFormat: 'opaque' };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A client as its pages name it: its registered name, else its id. */
function clientNameOf(client: { clientName?: string; clientId: string }): string {
  return client.clientName ?? client.clientId;
}

function render(ctx: KoaContextWithOIDC, title: string, body: string, status = 200): void {
  const reply = page(title, body, status);
  ctx.status = reply.status;
  for (const [name, value] of Object.entries(reply.headers)) ctx.set(name, value);
  ctx.body = reply.text;
}

/** oidc-provider's `features.deviceFlow`, with the service's own pages. */
export const deviceFlowFeature = {
  enabled: true,
  // Twenty consonants, no vowels (no words), no digits (no 0/O, 1/I confusion): RFC 8628 §6.1.
  charset: 'base-20' as const,
  mask: '****-****',
  async userCodeInputSource(ctx: KoaContextWithOIDC, form: string, _out: unknown, err?: Error & { userCode?: string }) {
    let message = '<p>Enter the code the command line shows you (<code>wfctl login --device</code>).</p>';
    if (err && (err.userCode || err.name === 'NoCodeError'))
      message =
        '<p class="error" role="alert">That code is not known or has expired. Check it, or run <code>wfctl login --device</code> again for a new one.</p>';
    else if (err?.name === 'AbortedError') message = '<p class="error" role="alert">The sign-in was cancelled.</p>';
    else if (err) message = '<p class="error" role="alert">The code could not be checked. Try again.</p>';
    render(
      ctx,
      'Sign in the command line',
      `<h1>Sign in the command line</h1>${message}
<label for="user-code">Code</label>
${form.replace('name="user_code"', 'id="user-code" name="user_code" aria-label="Code"').replace(/ onfocus="[^"]*"/, '')}
<button type="submit" form="op.deviceInputForm">Continue</button>`,
      err ? 400 : 200,
    );
  },
  async userCodeConfirmSource(
    ctx: KoaContextWithOIDC,
    form: string,
    client: { clientName?: string; clientId: string },
    _info: unknown,
    userCode: string,
  ) {
    // The client's own name, not the command line's wording: the page says who would get the account.
    const name = escape(clientNameOf(client));
    render(
      ctx,
      'Confirm the code',
      `<h1>Is this the code on your screen?</h1>
<p><code style="font-size:1.6rem;letter-spacing:.1em">${escape(userCode)}</code></p>
<p><strong>${name}</strong> asks to act on your account through the API: your workflows, library, deployments and API keys. Continue only if you started the sign-in of ${name} yourself and it shows this code.</p>
${form}
<div class="choices">
<button type="submit" form="op.deviceConfirmForm">Continue</button>
<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">Cancel</button>
</div>`,
    );
  },
  async successSource(ctx: KoaContextWithOIDC) {
    render(ctx, 'Signed in', '<h1>The command line is signed in</h1><p>You can close this page and go back to your terminal.</p>');
  },
};

/** The consent page of the command-line tool's browser sign-in (the loopback redirect). */
export function apiConsent(options: { action: string; email: string | null; redirectUri: string }): TextReply {
  const host = URL.parse(options.redirectUri)?.host ?? options.redirectUri;
  return choicePage(
    'Sign in the command line',
    `<h1>Sign in the command line?</h1>
<p><strong>${escape(cliClient.client_name!)}</strong> (it will return to <code>${escape(host)}</code> on this computer) asks to act on your account as ${escape(options.email ?? 'you')} through the API: your workflows, library, deployments and API keys.</p>
<p class="note">Allow only if you ran <code>wfctl login</code> yourself. <code>wfctl logout</code> ends it, or disconnect it under connected applications.</p>
`,
    options,
  );
}
