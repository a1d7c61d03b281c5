import { assertCredentialAllows } from '../api-keys/service.js';
import { looksLikeApiKey } from '../api-keys/secret.js';
import { parseAuthorizationHeader, type Authenticator } from '../auth/verify.js';
import type { CredentialUse, Viewer } from '../auth/viewer.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { RequestScope } from '../http/scope.js';
import { clientAddress } from '../limits/http.js';
import { rateBudget, type RateBudget } from '../limits/plans.js';
import { limitInto, type RateLimiter } from '../limits/rate-limit.js';
import type { Logger } from '../logger.js';
import type { BrowserSignIn } from '../oauth/sign-in.js';
import { looksLikeAccessToken } from '../oauth/authorization-server.js';
import type { Services } from '../services.js';

/**
 * One request's scope (src/http/scope.ts): who the caller is, found once and charged to its budget.
 * The caller is found from the Authorization header (a personal API key, an OAuth access token or an
 * ID token), or from the dashboard's session cookie once `useBrowserSession` has said so.
 */

/** What a scope needs of the service. */
export interface ScopeDeps {
  services: Services;
  log: Logger;
  config: Config;
  limiter: RateLimiter;
  authenticator: Authenticator;
  browser: BrowserSignIn;
  /** The authorization server's access tokens. */
  accessTokens: { authenticateAccessToken(token: string): Promise<Viewer> };
}

export interface EdgeScope extends RequestScope {
  /** Finds the caller (not yet charged): from the Authorization header, or the session cookie. */
  identify(): Promise<Viewer>;
  /** Set when the viewer comes from the dashboard's session cookie: charged to the session budget. */
  session: boolean;
}

/** What a connection tells beyond the request itself. */
export interface ConnectionInfo {
  /** The peer address of the socket. */
  remoteAddress?: string;
}

const API_USE: CredentialUse = { face: 'api' };

/** The caller of a request from its Authorization header, told apart by the credential's shape. */
async function bearerViewer(deps: ScopeDeps, header: string | null): Promise<Viewer> {
  // A personal API key is told from an ID token by its prefix, an OAuth access token by its shape
  // (opaque, no dots); all arrive as Bearer.
  const token = parseAuthorizationHeader(header);
  if (looksLikeApiKey(token)) return deps.services.apiKeys.authenticateApiKey(token);
  if (looksLikeAccessToken(token)) return deps.accessTokens.authenticateAccessToken(token);
  return deps.services.users.resolveViewer(await deps.authenticator.verifyAuthorization(header));
}

/**
 * `addressKey`: the API key an install address carries in its path (install/http.ts,
 * `keyOfAddress`), which is then the request's credential, in place of any Authorization header.
 */
export function newRequestScope(
  deps: ScopeDeps,
  request: Incoming,
  requestId: string,
  connection: ConnectionInfo,
  addressKey: string | null,
): EdgeScope {
  const { services, limiter } = deps;
  let viewer: Promise<Viewer> | undefined;
  let charged: { key: string; budget: RateBudget } | undefined;
  const scope: EdgeScope = {
    identify: () =>
      addressKey !== null ? services.install.viewerOfAddressKey(addressKey) : bearerViewer(deps, request.headers.get('authorization')),
    hasCredential: () => addressKey !== null || request.headers.has('authorization'),
    session: false,
    requestId,
    services,
    log: deps.log,
    route: 'unmatched',
    userId: null,
    headers: {},
    clientIp: clientAddress(request, connection.remoteAddress, deps.config.trustProxyHops),
    authenticate(use = API_USE) {
      viewer ??= (async () => {
        const v = await scope.identify();
        scope.userId = v.userId;
        // The dashboard (session cookie) and the user's tokens and API keys have separate budgets,
        // so neither can use up the other's (docs/plans.md, "The dashboard's budget").
        const plan = await services.billing.planOf(v.userId);
        charged = scope.session
          ? { key: `session:${v.userId}`, budget: rateBudget(plan, 'session') }
          : { key: `user:${v.userId}`, budget: rateBudget(plan, 'api') };
        if (!(use.face === 'mcp' && use.chargeLater)) await limitInto(scope.headers, limiter, charged.key, charged.budget);
        return v;
      })();
      return viewer.then((v) => {
        assertCredentialAllows(v, use);
        return v;
      });
    },
    async chargeMore(points) {
      if (!charged) throw new Error('chargeMore before authenticate');
      if (points > 0) await limitInto(scope.headers, limiter, charged.key, charged.budget, points);
    },
    async chargeCaller(team) {
      if (!charged) throw new Error('chargeCaller before authenticate');
      // A team's deployment is the team's bucket for its members (docs/plans.md, "Teams and seats").
      if (team) charged = { key: `team:${team.teamId}`, budget: rateBudget(await services.billing.planOf(team.billingOwnerId), 'api') };
      await limitInto(scope.headers, limiter, charged.key, charged.budget);
    },
    async limitAnonymous(deploymentId, ownerId) {
      const budget = rateBudget(await services.billing.planOf(ownerId), 'api');
      await limitInto(scope.headers, limiter, `anon:${deploymentId}:${scope.clientIp}`, budget);
    },
  };
  return scope;
}

/**
 * The dashboard's requests carry the browser session cookie instead of a token: accepted only from
 * the service's own pages (a cross-site request is refused before anything runs).
 */
export function useBrowserSession(browser: BrowserSignIn, request: Incoming, scope: EdgeScope): void {
  if (request.headers.has('authorization') || !browser.hasSessionCookie(request)) return;
  browser.assertSameOrigin(request);
  scope.session = true;
  scope.identify = async () => {
    const found = await browser.lookUp(request);
    if (!found)
      throw new AppError('UNAUTHORIZED', 'your session has ended (7 days without activity, or you signed out): sign in again', {
        reason: 'session',
      });
    if (found.setCookie) scope.headers['set-cookie'] = found.setCookie;
    return found.viewer;
  };
}
