import { DEV_ISSUER } from '../auth/dev-issuer.js';
import type { VerifiedIdentity } from '../auth/verify.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Viewer } from '../auth/viewer.js';
import { readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import type { Logger } from '../logger.js';
import { createMailer } from '../mail/mailer.js';
import type { Services } from '../services.js';
import { readCookie, setCookie } from './cookies.js';
import { createEmailSignIn } from './email-sign-in.js';
import { createGitHubClient } from './github.js';
import { createGitHubSignIn } from './github-sign-in.js';
import { createOidcRelyingParty, type OidcRelyingParty } from './oidc.js';
import { signInProblemPage, type ClientShown } from './pages.js';
import { signInPage, signInUnavailablePage, type WaysIn } from './sign-in-pages.js';
import { hashSecret, SESSION_IDLE_MS, type OAuthStore } from '../oauth-store/index.js';

/**
 * The one place a browser is signed in: the sign-in page listing the ways in that are configured
 * (GitHub, e-mail links, the OpenID provider; the development page when none is, outside
 * production), the session cookie, and sign-out. Other faces ask it who the browser is
 * (`currentBrowserUser`) and where to send a browser to sign in (`signInPath`).
 */

const SIGN_IN_PATH = '/sign-in';
const OIDC_PATH = '/sign-in/oidc';
const DEV_SIGN_IN_PATH = '/sign-in/dev';
const CALLBACK_PATH = '/sign-in/callback';
const SIGN_OUT_PATH = '/sign-out';
const ATTEMPT_TTL_SECONDS = 10 * 60;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]+\.[^\s@<>"]+$/;

export interface BrowserSignIn {
  /** The signed-in user of this browser request (the session cookie), or null. Extends the session's life. */
  currentBrowserUser(request: Incoming): Promise<Viewer | null>;
  /** The current user plus the Set-Cookie renewing the cookie when the session's last activity moved. */
  lookUp(request: Incoming): Promise<{ viewer: Viewer; setCookie: string | null } | null>;
  /** True when the request carries a session cookie at all. */
  hasSessionCookie(request: Incoming): boolean;
  /**
   * Refuses a cookie-authenticated request that another site made the browser send (FORBIDDEN):
   * its Origin must be the service's own, and Sec-Fetch-Site, when sent, `same-origin`.
   */
  assertSameOrigin(request: Incoming): void;
  /** Where to send a browser to sign in and come back to `returnPath` (a path on this service). */
  signInPath(returnPath: string): string;
  /**
   * Gives the sign-in page a way to name the application asking when the sign-in is the first step
   * of an authorization (the return path is that authorization's page): set by the authorization
   * server, which alone can look the application up.
   */
  describeReturnWith(describe: (returnTo: string) => Promise<ClientShown | null>): void;
  /** Answers the sign-in routes; null for any other path. `clientIp` is the caller's address (sending limits). */
  handle(request: Incoming, url: URL, clientIp?: string): Promise<Reply | null>;
}

/** A path on this service to return to after sign-in: never another host (open redirect). */
function safeReturnPath(raw: string | null | undefined): string {
  if (
    !raw ||
    raw.length > 1024 ||
    !raw.startsWith('/') ||
    raw.startsWith('//') ||
    raw.includes('\\') ||
    [...raw].some((c) => c.charCodeAt(0) < 0x20)
  )
    return '/';
  // Written as the URL parser writes it: characters outside ASCII percent-encoded, so the path can
  // go in a Location header (a header carries Latin-1 only).
  const base = 'http://service.invalid';
  const parsed = URL.parse(raw, base);
  if (!parsed || parsed.origin !== base) return '/';
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

function redirect(location: string, cookies: string[] = []): Response {
  // A Fetch API Response, since it can carry several Set-Cookie headers.
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}

export function createBrowserSignIn(deps: {
  config: Config;
  store: OAuthStore;
  clock: Clock;
  services: Services;
  log: Logger;
}): BrowserSignIn {
  const { config, clock, services, store } = deps;
  const sessions = store.sessions;
  const origin = new URL(config.publicBaseUrl).origin;
  const originUrl = new URL(origin);
  // A cookie over plain http is only sent to this machine; anywhere else the cookie is Secure.
  const secure = !(originUrl.protocol === 'http:' && LOOPBACK.has(originUrl.hostname));
  const sessionCookie = secure ? '__Host-wf_session' : 'wf_session';
  const attemptCookie = secure ? '__Secure-wf_sign_in' : 'wf_sign_in';
  const rp: OidcRelyingParty | null =
    config.oidcClient && config.oidc.issuer ? createOidcRelyingParty({ issuer: config.oidc.issuer, ...config.oidcClient }) : null;
  const devSignIn = !rp && !config.oidc.issuer && !config.mail && !config.github && config.devAuth && !config.production;
  const ways: WaysIn = {
    github: config.github !== null,
    email: config.mail !== null,
    oidc: rp ? (config.oidcClient?.name ?? new URL(config.oidc.issuer!).host) : null,
    dev: devSignIn,
  };
  const anyWay = ways.github || ways.email || ways.oidc !== null || ways.dev;
  const idleSeconds = SESSION_IDLE_MS / 1000;
  let describeReturn: (returnTo: string) => Promise<ClientShown | null> = () => Promise.resolve(null);

  function sessionCookieFor(secret: string): string {
    return setCookie(sessionCookie, secret, { secure, maxAge: idleSeconds });
  }

  async function lookUp(request: Incoming) {
    const secret = readCookie(request.headers, sessionCookie);
    if (!secret) return null;
    const found = await sessions.find(secret);
    if (!found) return null;
    return { viewer: found.viewer, setCookie: found.touched ? sessionCookieFor(secret) : null };
  }

  function assertSameOrigin(request: Incoming): void {
    const from = request.headers.get('origin');
    const own = new Set([origin, new URL(request.url).origin]);
    const site = request.headers.get('sec-fetch-site');
    if (!from || !own.has(from) || (site !== null && site !== 'same-origin')) {
      throw new AppError(
        'FORBIDDEN',
        'a request signed in by the browser session must come from the dashboard itself (its Origin is not this service)',
        { origin: from },
      );
    }
  }

  async function signedIn(identity: VerifiedIdentity, returnTo: string, extraCookies: string[] = []): Promise<Reply> {
    // The sign-in happened now (unless it says when it began: an e-mail link's sending): an account
    // of this identity deleted earlier does not refuse it (a new, empty account is made, as for a
    // new token).
    let viewer: Viewer;
    try {
      viewer = await services.users.resolveViewer({ ...identity, issuedAt: identity.issuedAt ?? clock.now().getTime() / 1000 });
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED')
        return signInProblemPage(
          'You were not signed in',
          'This sign-in began before the account was deleted. Start it again to make a new, empty account.',
          401,
        );
      throw error;
    }
    const secret = await sessions.open(viewer.userId);
    await services.teams.record({
      userId: viewer.userId,
      action: 'session.signed_in',
      actorUserId: viewer.userId,
      targetType: 'sign_in_method',
      targetId: identity.method ?? 'oidc',
      details: { issuer: identity.issuer },
    });
    return redirect(returnTo, [sessionCookieFor(secret), ...extraCookies]);
  }

  /** Adds a way in to the signed-in account, then goes back to `returnTo`. */
  async function linked(userId: string, identity: VerifiedIdentity, returnTo: string, extraCookies: string[] = []): Promise<Reply> {
    try {
      await services.signInIdentities.link(userId, identity);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'UNAUTHORIZED'))
        return signInProblemPage('This way in was not added', `It could not be added: ${error.message}.`, 409, returnTo);
      throw error;
    }
    return redirect(returnTo, extraCookies);
  }

  function sameOrigin(request: Incoming): boolean {
    try {
      assertSameOrigin(request);
      return true;
    } catch {
      return false;
    }
  }

  const email = config.mail
    ? createEmailSignIn({
        store,
        clock,
        mailer: createMailer(config.mail),
        log: deps.log,
        origin,
        ways,
        safeReturnPath,
        describeReturn: (returnTo) => describeReturn(returnTo),
        sameOrigin,
        currentUser: async (request) => (await lookUp(request))?.viewer ?? null,
        signIn: (identity, returnTo) => signedIn(identity, returnTo),
        link: (userId, identity, returnTo) => linked(userId, identity, returnTo),
      })
    : null;

  const github = config.github
    ? createGitHubSignIn({
        github: createGitHubClient(config.github),
        store,
        clock,
        origin,
        secure,
        safeReturnPath,
        currentUser: async (request) => (await lookUp(request))?.viewer ?? null,
        redirect,
        signIn: (identity, returnTo, cookies) => signedIn(identity, returnTo, cookies),
        link: (userId, identity, returnTo, cookies) => linked(userId, identity, returnTo, cookies),
      })
    : null;

  async function beginProviderSignIn(returnTo: string): Promise<Reply> {
    const started = await rp!.begin(`${origin}${CALLBACK_PATH}`);
    await store.signInAttempts.create(
      { id: hashSecret(started.state), codeVerifier: started.codeVerifier, nonce: started.nonce, returnTo, createdAt: clock.now() },
      ATTEMPT_TTL_SECONDS * 1000,
    );
    return redirect(started.url, [setCookie(attemptCookie, started.state, { secure, maxAge: ATTEMPT_TTL_SECONDS, path: SIGN_IN_PATH })]);
  }

  async function finishProviderSignIn(request: Incoming, url: URL): Promise<Reply> {
    const clearAttempt = setCookie(attemptCookie, '', { secure, maxAge: 0, path: SIGN_IN_PATH });
    const state = readCookie(request.headers, attemptCookie);
    // Each attempt is used once, whatever the outcome.
    const attempt = state ? await store.signInAttempts.take(hashSecret(state)) : null;
    if (!state || !attempt || clock.now().getTime() - attempt.createdAt.getTime() > ATTEMPT_TTL_SECONDS * 1000) {
      return signInProblemPage(
        'This sign-in has expired',
        'The sign-in was started more than 10 minutes ago, in another browser, or has already been used. Start it again.',
        400,
      );
    }
    const denied = url.searchParams.get('error');
    if (denied) {
      const reason = url.searchParams.get('error_description') ?? denied;
      return signInProblemPage('You were not signed in', `The identity provider answered: ${reason.slice(0, 300)}`, 401, attempt.returnTo);
    }
    let identity: VerifiedIdentity;
    try {
      // The URL the provider redirected to, as registered (behind a proxy the request's own host may differ).
      identity = await rp!.finish(new URL(`${origin}${CALLBACK_PATH}${url.search}`), {
        state,
        nonce: attempt.nonce,
        codeVerifier: attempt.codeVerifier,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED')
        return signInProblemPage('You were not signed in', error.message, 401, attempt.returnTo);
      throw error;
    }
    return signedIn(identity, attempt.returnTo, [clearAttempt]);
  }

  async function devSignInSubmit(request: Incoming): Promise<Reply> {
    if (!devSignIn)
      throw new AppError('NOT_FOUND', 'development sign-in is off: this service signs browsers in through its identity provider');
    assertSameOrigin(request);
    const form = new URLSearchParams(await readBodyText(request, 16 * 1024));
    const returnTo = safeReturnPath(form.get('return'));
    const email = (form.get('email') ?? '').trim();
    const again = async (error: string) => signInPage({ returnTo, ways, email, error, asking: await describeReturn(returnTo) });
    if (!email) return again('Enter your e-mail address.');
    if (email.length > 254 || !EMAIL.test(email)) return again('Enter an e-mail address such as name@example.com.');
    // The same account `npm run token -- --email` signs in as.
    return signedIn({ issuer: DEV_ISSUER, subject: `dev|${email.toLowerCase()}`, email, name: null }, returnTo);
  }

  return {
    lookUp,
    async currentBrowserUser(request) {
      return (await lookUp(request))?.viewer ?? null;
    },
    hasSessionCookie(request) {
      return readCookie(request.headers, sessionCookie) !== null;
    },
    assertSameOrigin,
    describeReturnWith(describe) {
      describeReturn = describe;
    },
    signInPath(returnPath) {
      return `${SIGN_IN_PATH}?return=${encodeURIComponent(safeReturnPath(returnPath))}`;
    },
    async handle(request, url, clientIp = 'unknown') {
      const path = url.pathname;
      if (path === SIGN_IN_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
        const returnTo = safeReturnPath(url.searchParams.get('return'));
        if (await lookUp(request)) return redirect(returnTo);
        if (!anyWay) return signInUnavailablePage();
        // The OpenID provider as the only way in: straight there, as before any choice existed.
        if (rp && !ways.email && !ways.github) return beginProviderSignIn(returnTo);
        return signInPage({ returnTo, ways, signedOut: url.searchParams.has('signed_out'), asking: await describeReturn(returnTo) });
      }
      if (path === OIDC_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
        if (!rp) return signInProblemPage('Not available', 'This service signs no one in through an OpenID provider.', 404);
        return beginProviderSignIn(safeReturnPath(url.searchParams.get('return')));
      }
      if (email) {
        const answered = await email.handle(request, url, clientIp);
        if (answered) return answered;
      }
      if (github) {
        const answered = await github.handle(request, url);
        if (answered) return answered;
      }
      if (path === DEV_SIGN_IN_PATH && request.method === 'POST') return devSignInSubmit(request);
      if (path === CALLBACK_PATH && request.method === 'GET') {
        if (!rp) throw new AppError('NOT_FOUND', 'no identity provider is configured for browser sign-in');
        return finishProviderSignIn(request, url);
      }
      if (path === SIGN_OUT_PATH && request.method === 'POST') {
        assertSameOrigin(request);
        const secret = readCookie(request.headers, sessionCookie);
        if (secret) await sessions.close(secret);
        return redirect(`${SIGN_IN_PATH}?signed_out=1`, [setCookie(sessionCookie, '', { secure, maxAge: 0 })]);
      }
      if (path === SIGN_IN_PATH || path === OIDC_PATH || path === DEV_SIGN_IN_PATH || path === CALLBACK_PATH || path === SIGN_OUT_PATH) {
        throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { method: request.method, path });
      }
      // A sign-in route of a way in that is not configured (a GitHub callback without GitHub).
      if (path.startsWith(`${SIGN_IN_PATH}/`)) return signInProblemPage('Not found', 'There is no such sign-in page on this service.', 404);
      return null;
    },
  };
}
