import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import { discardReply, textResponse, type Reply } from '../http/text-response.js';
import { graphqlErrorReply } from '../graphql/errors.js';
import { errorResponse } from '../rest/envelope.js';
import { tooManyRequestsPage } from '../http/service-pages.js';
import { rateBudget, type RateBudget } from './plans.js';
import { hasRateLimitHeaders, limitInto, type RateLimiter, type RateLimitHeaders } from './rate-limit.js';

/**
 * Who pays for a request, decided before it is routed (docs/plans.md, "Rate limits"):
 *
 * - `uncounted`: health checks, /metrics, the documents and the payment provider's webhook. Never
 *   refused; their answer describes the client address's budget without spending it.
 * - `address`: everything a caller can send without a credential (the authorization server, the
 *   discovery documents, the sign-in pages, unknown routes, any request that carries no
 *   credential). Charged to the client address **before** the handler runs, so a refused request
 *   has no effect at all: no row written, no outbound connection, no token rotated.
 * - `caller`: a request with a credential (Authorization, an install address's key, or the
 *   dashboard's session cookie on /graphql), and the tool endpoint (whose anonymous deployments count per deployment and
 *   address). The handler charges the caller it identified before doing anything; a request whose
 *   credential fails, so that no one was charged, is charged to the client address afterwards.
 *
 * - `sign-in`: the pages a person goes through to sign in (the sign-in page and its form, the
 *   authorization endpoint's redirects, the consent and device-code pages). Charged to the client
 *   address before the handler, like `address`, but to a budget of their own, so API traffic, icons
 *   and unknown paths from the same address never starve a sign-in.
 * - `token`: the token endpoint (code exchange, refresh, a device's polling at its interval), on a
 *   budget of its own too, so a command line waiting for its device code costs the pages nothing.
 *
 * The dashboard's files and page shell are not charged at all and never reach this: they are
 * answered before (src/app.ts).
 */
export type RequestCharge = 'uncounted' | 'address' | 'sign-in' | 'token' | 'caller';

/**
 * Load balancers probe health and scrapers poll /metrics every few seconds (a refused metrics
 * token is counted by the metrics endpoint itself), documents are static, and the payment
 * provider's webhook deliveries must not be turned away (they are authenticated by their signature).
 */
const UNCOUNTED = new Set(['/healthz', '/readyz', '/metrics', '/v1/billing/webhook', '/v1/openapi.json', '/v1/reference', '/v1/docs']);

/** Routes that anyone may call without a credential, whatever headers they send. */
const OPEN_PREFIXES = ['/oauth/', '/.well-known/', '/sign-'];

/** Unidentified callers get the free plan's API rate per address. */
export const ADDRESS_BUDGET = rateBudget('free', 'api');

/** The sign-in pages and the token endpoint each get the free plan's dashboard rate per address. */
const SIGN_IN_BUDGET = rateBudget('free', 'session');

/** Sign-in pages: `/sign-…`, and the authorization server's pages a browser is sent through. */
const SIGN_IN_PATH = /^\/(?:sign-[a-z-]+(?:\/[^/]+)*|oauth\/(?:authorize|interaction\/.*|device|session\/end))$/;

export function addressKey(clientIp: string): string {
  return `ip:${clientIp}`;
}

/** The counter and budget a request of class `address`, `sign-in` or `token` is charged to. */
function addressBudget(charge: RequestCharge, clientIp: string): { key: string; budget: RateBudget } {
  if (charge === 'sign-in') return { key: `sign-in:${clientIp}`, budget: SIGN_IN_BUDGET };
  if (charge === 'token') return { key: `token:${clientIp}`, budget: SIGN_IN_BUDGET };
  return { key: addressKey(clientIp), budget: ADDRESS_BUDGET };
}

/**
 * The client's address. Behind `hops` trusted proxies each of which appends the address it saw to
 * X-Forwarded-For, the client is the `hops`-th entry from the right; entries further left were
 * written by the client and prove nothing.
 */
export function clientAddress(request: Incoming, remoteAddress: string | undefined, trustedProxyHops: number): string {
  if (trustedProxyHops > 0) {
    const chain = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const candidate = chain[chain.length - trustedProxyHops];
    if (candidate) return candidate;
  }
  return remoteAddress ?? 'unknown';
}

/** A page load of a browser (a navigation), as opposed to a program's request or a page's own fetch. */
export function isNavigation(request: Incoming): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const mode = request.headers.get('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  return (request.headers.get('accept') ?? '').includes('text/html');
}

/** A page load, or a form a browser submits (its answer is the next page shown). */
function showsAPage(request: Incoming): boolean {
  if (isNavigation(request)) return true;
  if (request.method !== 'POST') return false;
  const mode = request.headers.get('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  // Without Fetch Metadata (older browsers): a form whose sender reads HTML; a program's form POST
  // (a token request) asks for JSON and gets it.
  return (
    /^application\/x-www-form-urlencoded\b/.test(request.headers.get('content-type') ?? '') &&
    (request.headers.get('accept') ?? '').includes('text/html')
  );
}

export function requestCharge(
  request: Incoming,
  path: string,
  options: {
    isToolEndpoint: boolean;
    hasSessionCookie: boolean;
    /** An install address with an API key in its path (src/install/http.ts): the key's owner pays. */
    hasKeyInPath: boolean;
  },
): RequestCharge {
  if (UNCOUNTED.has(path) || path.startsWith('/v1/schemas/')) return 'uncounted';
  if (SIGN_IN_PATH.test(path)) return 'sign-in';
  if (path === '/oauth/token') return 'token';
  if (path === '/oauth' || OPEN_PREFIXES.some((prefix) => path.startsWith(prefix))) return 'address';
  if (options.isToolEndpoint || options.hasKeyInPath || request.headers.has('authorization')) return 'caller';
  if (path === '/graphql' && options.hasSessionCookie) return 'caller';
  return 'address';
}

/**
 * The answer to a request refused by its address's budget, in the form its sender reads: a page
 * for a browser's page load, the GraphQL error shape on /graphql, an OAuth error (RFC 6749 5.2
 * shape, `temporarily_unavailable`) from the authorization server's endpoints, the envelope
 * elsewhere. The headers (Retry-After, X-RateLimit-*) are added by the caller from the scope.
 */
function refusalReply(request: Incoming, path: string, error: AppError): Reply {
  if (showsAPage(request)) {
    const details = error.details as { limit?: number; window?: string; retryAfterSeconds?: number };
    return tooManyRequestsPage({
      limit: details.limit ?? ADDRESS_BUDGET.perMinute,
      window: details.window ?? 'minute',
      retryAfterSeconds: details.retryAfterSeconds ?? 60,
    });
  }
  if (path === '/graphql') return graphqlErrorReply(error);
  if (path.startsWith('/oauth/')) {
    return textResponse(JSON.stringify({ error: 'temporarily_unavailable', error_description: error.message }), {
      status: error.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  }
  return errorResponse(error);
}

/** Whether a request of this class is charged to its client address before it is routed. */
export function chargedBefore(charge: RequestCharge): boolean {
  return charge === 'address' || charge === 'sign-in' || charge === 'token';
}

/**
 * Charges a request of class `address`, `sign-in` or `token` to its client address before it is
 * routed. Returns the refusal to answer with when the address is over that budget, or null to go on.
 */
export async function chargeBefore(
  limiter: RateLimiter,
  scope: { headers: RateLimitHeaders; clientIp: string },
  request: Incoming,
  path: string,
  charge: RequestCharge = 'address',
): Promise<Reply | null> {
  const { key, budget } = addressBudget(charge, scope.clientIp);
  try {
    await limitInto(scope.headers, limiter, key, budget);
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refusalReply(request, path, error);
  }
}

/**
 * After the handler: an uncounted request's answer gets its address's headers; a `caller` request
 * that no budget counted (its credential failed) is charged to its address now, and turned into a
 * 429 when the address is over its budget.
 */
export async function chargeAfter(
  limiter: RateLimiter,
  scope: { headers: RateLimitHeaders; clientIp: string },
  charge: RequestCharge,
  request: Incoming,
  path: string,
  response: Reply,
): Promise<Reply> {
  if (hasRateLimitHeaders(scope.headers)) return response;
  const key = addressKey(scope.clientIp);
  if (charge !== 'caller') {
    const { key: ownKey, budget } = addressBudget(charge, scope.clientIp);
    Object.assign(scope.headers, await limiter.peek(ownKey, budget));
    return response;
  }
  try {
    await limitInto(scope.headers, limiter, key, ADDRESS_BUDGET);
    return response;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await discardReply(response);
    return refusalReply(request, path, error);
  }
}
