import type { VerifiedIdentity, Viewer } from '../auth/viewer.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import { hashSecret, type OAuthStore } from '../oauth-store/index.js';
import { readCookie, setCookie } from './cookies.js';
import type { GitHubClient } from './github.js';
import { signInProblemPage } from './pages.js';

/**
 * GitHub sign-in's two routes: `/sign-in/github` starts GitHub's web flow (or, with `link=1` from
 * a signed-in browser, adds GitHub to that account), `/sign-in/github/callback` is the OAuth App's
 * callback URL. The attempt (state, PKCE verifier, where to return) is kept under the state's hash
 * and named by a cookie; each is used once, within 10 minutes.
 */

const START_PATH = '/sign-in/github';
const GITHUB_CALLBACK_PATH = '/sign-in/github/callback';
const ATTEMPT_TTL_MS = 10 * 60 * 1000;

export interface GitHubSignInDeps {
  github: GitHubClient;
  store: OAuthStore;
  clock: Clock;
  origin: string;
  secure: boolean;
  safeReturnPath(raw: string | null | undefined): string;
  currentUser(request: Incoming): Promise<Viewer | null>;
  redirect(location: string, cookies?: string[]): Reply;
  signIn(identity: VerifiedIdentity, returnTo: string, cookies: string[]): Promise<Reply>;
  link(userId: string, identity: VerifiedIdentity, returnTo: string, cookies: string[]): Promise<Reply>;
}

export function createGitHubSignIn(deps: GitHubSignInDeps) {
  const { store, clock, secure } = deps;
  const cookieName = secure ? '__Secure-wf_github_sign_in' : 'wf_github_sign_in';
  const clear = setCookie(cookieName, '', { secure, maxAge: 0, path: START_PATH });

  async function begin(request: Incoming, url: URL): Promise<Reply> {
    const returnTo = deps.safeReturnPath(url.searchParams.get('return'));
    const linking = url.searchParams.get('link') === '1' ? await deps.currentUser(request) : null;
    if (url.searchParams.get('link') === '1' && !linking)
      return signInProblemPage('You are not signed in', 'Sign in first, then add GitHub from your account page.', 401);
    const started = await deps.github.begin(`${deps.origin}${GITHUB_CALLBACK_PATH}`);
    await store.signInAttempts.create(
      {
        id: hashSecret(started.state),
        codeVerifier: started.codeVerifier,
        nonce: '',
        returnTo,
        createdAt: clock.now(),
        method: 'github',
        linkTo: linking?.userId ?? null,
      },
      ATTEMPT_TTL_MS,
    );
    return deps.redirect(started.url, [setCookie(cookieName, started.state, { secure, maxAge: ATTEMPT_TTL_MS / 1000, path: START_PATH })]);
  }

  async function callback(request: Incoming, url: URL): Promise<Reply> {
    const state = readCookie(request.headers, cookieName);
    const returned = url.searchParams.get('state');
    // The state GitHub sent back must be the one this browser was given; the attempt is used once.
    const attempt = state && returned === state ? await store.signInAttempts.take(hashSecret(state)) : null;
    if (!state || !attempt || attempt.method !== 'github' || clock.now().getTime() - attempt.createdAt.getTime() > ATTEMPT_TTL_MS) {
      return signInProblemPage(
        'This sign-in has expired or did not start here',
        'The answer from GitHub does not belong to a sign-in started in this browser in the last 10 minutes (or it was already used). Start again.',
        400,
      );
    }
    const denied = url.searchParams.get('error');
    if (denied) {
      const reason = url.searchParams.get('error_description') ?? denied;
      return signInProblemPage('GitHub did not sign you in', `GitHub answered: ${reason.slice(0, 300)}`, 401, attempt.returnTo);
    }
    let identity: VerifiedIdentity;
    try {
      identity = await deps.github.finish(new URL(`${deps.origin}${GITHUB_CALLBACK_PATH}${url.search}`), {
        state,
        codeVerifier: attempt.codeVerifier,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED')
        return signInProblemPage('GitHub did not sign you in', error.message, 401, attempt.returnTo);
      throw error;
    }
    if (attempt.linkTo) {
      const viewer = await deps.currentUser(request);
      if (!viewer || viewer.userId !== attempt.linkTo)
        return signInProblemPage(
          'GitHub was not added',
          'You are no longer signed in to the account that asked for it. Sign in and try again.',
          400,
        );
      return deps.link(attempt.linkTo, identity, attempt.returnTo, [clear]);
    }
    return deps.signIn(identity, attempt.returnTo, [clear]);
  }

  return {
    async handle(request: Incoming, url: URL): Promise<Reply | null> {
      const get = request.method === 'GET' || request.method === 'HEAD';
      if (url.pathname === START_PATH && get) return begin(request, url);
      if (url.pathname === GITHUB_CALLBACK_PATH && get) return callback(request, url);
      if (url.pathname === START_PATH || url.pathname === GITHUB_CALLBACK_PATH)
        return signInProblemPage('Not allowed', `${request.method} is not allowed here.`, 405);
      return null;
    },
  };
}
