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

interface SignInDeps {
  config: Config;
  store: OAuthStore;
  clock: Clock;
  services: Services;
  log: Logger;
}

/** What the sign-in routes work with: the configuration's ways in, the cookies' names, and the ways in built from it. */
interface SignInContext extends SignInDeps {
  origin: string;
  /** Whether the cookies are Secure (anywhere but plain http on this machine). */
  secure: boolean;
  sessionCookie: string;
  attemptCookie: string;
  rp: OidcRelyingParty | null;
  devSignIn: boolean;
  ways: WaysIn;
  anyWay: boolean;
  describeReturn: (returnTo: string) => Promise<ClientShown | null>;
  email: ReturnType<typeof createEmailSignIn> | null;
  github: ReturnType<typeof createGitHubSignIn> | null;
}

function sessionCookieFor(ctx: SignInContext, secret: string): string {
  return setCookie(ctx.sessionCookie, secret, { secure: ctx.secure, maxAge: SESSION_IDLE_MS / 1000 });
}

async function lookUp(ctx: SignInContext, request: Incoming) {
  const secret = readCookie(request.headers, ctx.sessionCookie);
  if (!secret) return null;
  const found = await ctx.store.sessions.find(secret);
  if (!found) return null;
  return { viewer: found.viewer, setCookie: found.touched ? sessionCookieFor(ctx, secret) : null };
}

function assertSameOrigin(origin: string, request: Incoming): void {
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

function sameOrigin(origin: string, request: Incoming): boolean {
  try {
    assertSameOrigin(origin, request);
    return true;
  } catch {
    return false;
  }
}

async function signedIn(ctx: SignInContext, identity: VerifiedIdentity, returnTo: string, extraCookies: string[] = []): Promise<Reply> {
  // The sign-in happened now (unless it says when it began: an e-mail link's sending): an account
  // of this identity deleted earlier does not refuse it (a new, empty account is made, as for a
  // new token).
  let viewer: Viewer;
  try {
    viewer = await ctx.services.users.resolveViewer({ ...identity, issuedAt: identity.issuedAt ?? ctx.clock.now().getTime() / 1000 });
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED')
      return signInProblemPage(
        'You were not signed in',
        'This sign-in began before the account was deleted. Start it again to make a new, empty account.',
        401,
      );
    throw error;
  }
  const secret = await ctx.store.sessions.open(viewer.userId);
  await ctx.services.teams.record({
    userId: viewer.userId,
    action: 'session.signed_in',
    actorUserId: viewer.userId,
    targetType: 'sign_in_method',
    targetId: identity.method ?? 'oidc',
    details: { issuer: identity.issuer },
  });
  return redirect(returnTo, [sessionCookieFor(ctx, secret), ...extraCookies]);
}

/** Adds a way in to the signed-in account, then goes back to `returnTo`. */
async function linked(
  ctx: SignInContext,
  userId: string,
  identity: VerifiedIdentity,
  returnTo: string,
  extraCookies: string[] = [],
): Promise<Reply> {
  try {
    await ctx.services.signInIdentities.link(userId, identity);
  } catch (error) {
    if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'UNAUTHORIZED'))
      return signInProblemPage('This way in was not added', `It could not be added: ${error.message}.`, 409, returnTo);
    throw error;
  }
  return redirect(returnTo, extraCookies);
}

async function beginProviderSignIn(ctx: SignInContext, returnTo: string): Promise<Reply> {
  const { origin, clock, secure, attemptCookie } = ctx;
  const started = await ctx.rp!.begin(`${origin}${CALLBACK_PATH}`);
  await ctx.store.signInAttempts.create(
    { id: hashSecret(started.state), codeVerifier: started.codeVerifier, nonce: started.nonce, returnTo, createdAt: clock.now() },
    ATTEMPT_TTL_SECONDS * 1000,
  );
  return redirect(started.url, [setCookie(attemptCookie, started.state, { secure, maxAge: ATTEMPT_TTL_SECONDS, path: SIGN_IN_PATH })]);
}

async function finishProviderSignIn(ctx: SignInContext, request: Incoming, url: URL): Promise<Reply> {
  const { clock, attemptCookie, origin } = ctx;
  const clearAttempt = setCookie(attemptCookie, '', { secure: ctx.secure, maxAge: 0, path: SIGN_IN_PATH });
  const state = readCookie(request.headers, attemptCookie);
  // Each attempt is used once, whatever the outcome.
  const attempt = state ? await ctx.store.signInAttempts.take(hashSecret(state)) : null;
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
    identity = await ctx.rp!.finish(new URL(`${origin}${CALLBACK_PATH}${url.search}`), {
      state,
      nonce: attempt.nonce,
      codeVerifier: attempt.codeVerifier,
    });
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED')
      return signInProblemPage('You were not signed in', error.message, 401, attempt.returnTo);
    throw error;
  }
  return signedIn(ctx, identity, attempt.returnTo, [clearAttempt]);
}

async function devSignInSubmit(ctx: SignInContext, request: Incoming): Promise<Reply> {
  if (!ctx.devSignIn)
    throw new AppError('NOT_FOUND', 'development sign-in is off: this service signs browsers in through its identity provider');
  assertSameOrigin(ctx.origin, request);
  const form = new URLSearchParams(await readBodyText(request, 16 * 1024));
  const returnTo = safeReturnPath(form.get('return'));
  const email = (form.get('email') ?? '').trim();
  const { ways } = ctx;
  const again = async (error: string) => signInPage({ returnTo, ways, email, error, asking: await ctx.describeReturn(returnTo) });
  if (!email) return again('Enter your e-mail address.');
  if (email.length > 254 || !EMAIL.test(email)) return again('Enter an e-mail address such as name@example.com.');
  // The same account `npm run token -- --email` signs in as.
  return signedIn(ctx, { issuer: DEV_ISSUER, subject: `dev|${email.toLowerCase()}`, email, name: null }, returnTo);
}

/** The sign-in page: back where it came from when signed in already, straight to the only way in when there is one such. */
async function signInPageFor(ctx: SignInContext, request: Incoming, url: URL): Promise<Reply> {
  const { ways, rp } = ctx;
  const returnTo = safeReturnPath(url.searchParams.get('return'));
  if (await lookUp(ctx, request)) return redirect(returnTo);
  if (!ctx.anyWay) return signInUnavailablePage();
  // The OpenID provider as the only way in: straight there, as before any choice existed.
  if (rp && !ways.email && !ways.github) return beginProviderSignIn(ctx, returnTo);
  return signInPage({ returnTo, ways, signedOut: url.searchParams.has('signed_out'), asking: await ctx.describeReturn(returnTo) });
}

async function signOut(ctx: SignInContext, request: Incoming): Promise<Reply> {
  assertSameOrigin(ctx.origin, request);
  const secret = readCookie(request.headers, ctx.sessionCookie);
  if (secret) await ctx.store.sessions.close(secret);
  return redirect(`${SIGN_IN_PATH}?signed_out=1`, [setCookie(ctx.sessionCookie, '', { secure: ctx.secure, maxAge: 0 })]);
}

const OWN_PATHS = new Set([SIGN_IN_PATH, OIDC_PATH, DEV_SIGN_IN_PATH, CALLBACK_PATH, SIGN_OUT_PATH]);

async function handleSignIn(ctx: SignInContext, request: Incoming, url: URL, clientIp: string): Promise<Reply | null> {
  const path = url.pathname;
  const reading = request.method === 'GET' || request.method === 'HEAD';
  if (path === SIGN_IN_PATH && reading) return signInPageFor(ctx, request, url);
  if (path === OIDC_PATH && reading) {
    if (!ctx.rp) return signInProblemPage('Not available', 'This service signs no one in through an OpenID provider.', 404);
    return beginProviderSignIn(ctx, safeReturnPath(url.searchParams.get('return')));
  }
  const byWayIn = (await ctx.email?.handle(request, url, clientIp)) ?? (await ctx.github?.handle(request, url));
  if (byWayIn) return byWayIn;
  if (path === DEV_SIGN_IN_PATH && request.method === 'POST') return devSignInSubmit(ctx, request);
  if (path === CALLBACK_PATH && request.method === 'GET') {
    if (!ctx.rp) throw new AppError('NOT_FOUND', 'no identity provider is configured for browser sign-in');
    return finishProviderSignIn(ctx, request, url);
  }
  if (path === SIGN_OUT_PATH && request.method === 'POST') return signOut(ctx, request);
  if (OWN_PATHS.has(path))
    throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { method: request.method, path });
  // A sign-in route of a way in that is not configured (a GitHub callback without GitHub).
  if (path.startsWith(`${SIGN_IN_PATH}/`)) return signInProblemPage('Not found', 'There is no such sign-in page on this service.', 404);
  return null;
}

/** The context of the configuration, before the ways in that call back into it are added. */
function signInContext(deps: SignInDeps): SignInContext {
  const { config } = deps;
  const origin = new URL(config.publicBaseUrl).origin;
  const originUrl = new URL(origin);
  // A cookie over plain http is only sent to this machine; anywhere else the cookie is Secure.
  const secure = !(originUrl.protocol === 'http:' && LOOPBACK.has(originUrl.hostname));
  const rp: OidcRelyingParty | null =
    config.oidcClient && config.oidc.issuer ? createOidcRelyingParty({ issuer: config.oidc.issuer, ...config.oidcClient }) : null;
  const devSignIn = !rp && !config.oidc.issuer && !config.mail && !config.github && config.devAuth && !config.production;
  const ways: WaysIn = {
    github: config.github !== null,
    email: config.mail !== null,
    oidc: rp ? (config.oidcClient?.name ?? new URL(config.oidc.issuer!).host) : null,
    dev: devSignIn,
  };
  return {
    ...deps,
    origin,
    secure,
    sessionCookie: secure ? '__Host-wf_session' : 'wf_session',
    attemptCookie: secure ? '__Secure-wf_sign_in' : 'wf_sign_in',
    rp,
    devSignIn,
    ways,
    anyWay: ways.github || ways.email || ways.oidc !== null || ways.dev,
    describeReturn: () => Promise.resolve(null),
    email: null,
    github: null,
  };
}

/** The ways in by e-mail link and by GitHub, where configured. */
function addWaysIn(ctx: SignInContext): void {
  const { config, store, clock, origin } = ctx;
  const currentUser = async (request: Incoming) => (await lookUp(ctx, request))?.viewer ?? null;
  ctx.email = config.mail
    ? createEmailSignIn({
        store,
        clock,
        mailer: createMailer(config.mail),
        log: ctx.log,
        origin,
        ways: ctx.ways,
        safeReturnPath,
        describeReturn: (returnTo) => ctx.describeReturn(returnTo),
        sameOrigin: (request) => sameOrigin(origin, request),
        currentUser,
        signIn: (identity, returnTo) => signedIn(ctx, identity, returnTo),
        link: (userId, identity, returnTo) => linked(ctx, userId, identity, returnTo),
      })
    : null;
  ctx.github = config.github
    ? createGitHubSignIn({
        github: createGitHubClient(config.github),
        store,
        clock,
        origin,
        secure: ctx.secure,
        safeReturnPath,
        currentUser,
        redirect,
        signIn: (identity, returnTo, cookies) => signedIn(ctx, identity, returnTo, cookies),
        link: (userId, identity, returnTo, cookies) => linked(ctx, userId, identity, returnTo, cookies),
      })
    : null;
}

export function createBrowserSignIn(deps: SignInDeps): BrowserSignIn {
  const ctx = signInContext(deps);
  addWaysIn(ctx);
  return {
    lookUp: (request) => lookUp(ctx, request),
    async currentBrowserUser(request) {
      return (await lookUp(ctx, request))?.viewer ?? null;
    },
    hasSessionCookie(request) {
      return readCookie(request.headers, ctx.sessionCookie) !== null;
    },
    assertSameOrigin: (request) => assertSameOrigin(ctx.origin, request),
    describeReturnWith(describe) {
      ctx.describeReturn = describe;
    },
    signInPath(returnPath) {
      return `${SIGN_IN_PATH}?return=${encodeURIComponent(safeReturnPath(returnPath))}`;
    },
    handle: (request, url, clientIp = 'unknown') => handleSignIn(ctx, request, url, clientIp),
  };
}
