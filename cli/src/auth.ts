import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'openid-client';
import { credentialStore, type StoredCredential } from './credentials.js';
import { CliError, type Output } from './output.js';
import { isLoopback } from './settings.js';

/**
 * Signing in against the service's own authorization server as its first-party client `wfctl`
 * (docs/cli.md, "Signing in"): authorization code with PKCE through a loopback redirect, or the
 * device authorization grant (RFC 8628). The token asked for is the API's (resource = the service's
 * base URL, scope `api`), with a refresh token.
 */

const CLIENT_ID = 'wfctl';
const SCOPE = 'api offline_access';
/** How long the browser sign-in waits for the redirect before giving up. */
const BROWSER_WAIT_MS = 5 * 60_000;

/**
 * The service's authorization server. Its issuer is the service's public address (`PUBLIC_BASE_URL`),
 * which may name the same machine differently from `--service` (localhost and 127.0.0.1): the
 * metadata at the address given names the issuer, whose own metadata is then read and checked.
 */
async function discover(service: string): Promise<oauth.Configuration> {
  let issuer: string;
  try {
    const answer = await fetch(`${service}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(15_000) });
    issuer = String(((await answer.json()) as { issuer?: unknown }).issuer ?? '');
    new URL(issuer);
  } catch (error) {
    throw new CliError(
      'SERVICE_UNREACHABLE',
      `the authorization server of ${service} could not be read: ${describe(error)}`,
      'Check the address (--service or WFCTL_SERVICE) and that the service is running.',
    );
  }
  const insecure = new URL(issuer).protocol === 'http:' && isLoopback(new URL(issuer).hostname);
  if (new URL(issuer).protocol === 'http:' && !insecure)
    throw new CliError(
      'SIGN_IN_FAILED',
      `the service's authorization server ${issuer} uses plain http to another machine`,
      'Its operator must serve it over https (PUBLIC_BASE_URL).',
    );
  try {
    return await oauth.discovery(new URL(issuer), CLIENT_ID, { token_endpoint_auth_method: 'none' }, oauth.None(), {
      execute: insecure ? [oauth.allowInsecureRequests] : [],
      timeout: 15,
    });
  } catch (error) {
    throw new CliError(
      'SERVICE_UNREACHABLE',
      `the authorization server of ${service} could not be read: ${describe(error)}`,
      'Check the address (--service or WFCTL_SERVICE) and that the service is running.',
    );
  }
}

/** The API's resource identifier: the service's base URL, `<issuer>/v1`. */
function apiResource(config: oauth.Configuration): string {
  return `${config.serverMetadata().issuer.replace(/\/$/, '')}/v1`;
}

function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return `${error.error}: ${error.error_description ?? ''}`.trim();
  if (error instanceof Error && error.cause instanceof Response) return `${error.message} (HTTP ${error.cause.status})`;
  if (error instanceof Error) return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
  return String(error);
}

function toStored(service: string, tokens: oauth.TokenEndpointResponse, previous?: StoredCredential): StoredCredential {
  return {
    service,
    kind: 'oauth',
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previous?.refreshToken,
    expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
    email: previous?.email ?? null,
  };
}

export async function deviceLogin(service: string, out: Output, openBrowser: boolean): Promise<StoredCredential> {
  const config = await discover(service);
  let started: oauth.DeviceAuthorizationResponse;
  try {
    started = await oauth.initiateDeviceAuthorization(config, { scope: SCOPE, resource: apiResource(config) });
  } catch (error) {
    throw new CliError(
      'SIGN_IN_FAILED',
      `the device sign-in could not start: ${describe(error)}`,
      'Check that the service is up to date, or use wfctl login without --device.',
    );
  }
  out.progress(`To sign in, open ${started.verification_uri} and enter the code ${started.user_code}`);
  if (started.verification_uri_complete) out.progress(`  or open ${started.verification_uri_complete}`);
  out.progress(`Waiting for the approval (the code expires in ${Math.round(started.expires_in / 60)} minutes)…`);
  if (openBrowser && started.verification_uri_complete) open(started.verification_uri_complete);
  const abort = AbortSignal.timeout(started.expires_in * 1000 + 5_000);
  try {
    const tokens = await oauth.pollDeviceAuthorizationGrant(config, started, { resource: apiResource(config) }, { signal: abort });
    return toStored(service, tokens);
  } catch (error) {
    const code = error instanceof oauth.ResponseBodyError ? error.error : '';
    if (code === 'access_denied')
      throw new CliError('SIGN_IN_FAILED', 'the sign-in was denied in the browser', 'Run wfctl login --device again and confirm the code.');
    if (code === 'expired_token' || abort.aborted)
      throw new CliError(
        'SIGN_IN_FAILED',
        'the code expired before it was approved',
        'Run wfctl login --device again and approve it within the time shown.',
      );
    throw new CliError('SIGN_IN_FAILED', `the device sign-in failed: ${describe(error)}`, 'Run wfctl login --device again.');
  }
}

export async function browserLogin(service: string, out: Output, openBrowser: boolean): Promise<StoredCredential> {
  const config = await discover(service);
  const verifier = oauth.randomPKCECodeVerifier();
  const state = oauth.randomState();
  let onCallback!: (url: URL) => void;
  const called = new Promise<URL>((resolve) => (onCallback = resolve));
  const server = createServer((req, res) => {
    // The redirect URI with its port: the token request names it again, and must name it exactly.
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // Only the redirect of this sign-in ends the wait: a request without this run's `state` (a local
    // process replaying an old or guessed address with a code of its own) is answered and ignored.
    if (url.searchParams.get('state') !== state) {
      res
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><title>Not this sign-in</title><h1>This address does not belong to the sign-in in progress</h1><p>The command line is still waiting for its own sign-in. Go back to your terminal.</p>',
        );
      return;
    }
    const failed = url.searchParams.has('error');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        failed
          ? '<!doctype html><title>Sign-in failed</title><h1>The sign-in did not finish</h1><p>Go back to your terminal for what to do.</p>'
          : '<!doctype html><title>Signed in</title><h1>The command line is signed in</h1><p>You can close this page.</p>',
      );
    onCallback(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const authorizationUrl = oauth.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      resource: apiResource(config),
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      prompt: 'consent',
    });
    out.progress(`Sign in in your browser: ${authorizationUrl.href}`);
    out.progress('Waiting for the browser… (no browser here? use wfctl login --device)');
    if (openBrowser) open(authorizationUrl.href);
    let timer: NodeJS.Timeout | undefined;
    const callback = await Promise.race([
      called,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new CliError(
                'SIGN_IN_FAILED',
                'no answer from the browser within 5 minutes',
                'Run wfctl login again, or wfctl login --device.',
              ),
            ),
          BROWSER_WAIT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if (callback.searchParams.get('error') === 'access_denied')
      throw new CliError('SIGN_IN_FAILED', 'the sign-in was denied in the browser', 'Run wfctl login again and allow it.');
    try {
      const tokens = await oauth.authorizationCodeGrant(
        config,
        callback,
        { pkceCodeVerifier: verifier, expectedState: state },
        { resource: apiResource(config) },
      );
      return toStored(service, tokens);
    } catch (error) {
      throw new CliError('SIGN_IN_FAILED', `the sign-in failed: ${describe(error)}`, 'Run wfctl login again.');
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** A new access token from the refresh token; null when the service no longer accepts it. */
export async function refresh(credential: StoredCredential): Promise<StoredCredential | null> {
  if (!credential.refreshToken) return null;
  const config = await discover(credential.service);
  try {
    const tokens = await oauth.refreshTokenGrant(config, credential.refreshToken, { resource: apiResource(config) });
    const next = toStored(credential.service, tokens, credential);
    credentialStore().save(next);
    return next;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return null;
    throw new CliError(
      'SERVICE_UNREACHABLE',
      `the sign-in could not be renewed: ${describe(error)}`,
      'Check the connection to the service and try again.',
    );
  }
}

/** Revokes the refresh token (which ends its grant); false when the service could not be told. */
export async function revoke(credential: StoredCredential): Promise<boolean> {
  try {
    const config = await discover(credential.service);
    await oauth.tokenRevocation(config, credential.refreshToken ?? credential.accessToken);
    return true;
  } catch {
    return false;
  }
}

/** Opens a URL in the desktop's browser, when there is one; the URL is printed either way. */
function open(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser opener: the printed URL is the way.
  }
}
