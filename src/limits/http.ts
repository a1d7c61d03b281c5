import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import { discardReply, type Reply } from '../http/text-response.js';
import { graphqlErrorReply } from '../graphql/errors.js';
import { errorResponse } from '../rest/envelope.js';
import { hasRateLimitHeaders, limitInto, type RateLimiter, type RateLimitHeaders } from './rate-limit.js';

/**
 * Rate limits of requests that no user (or anonymous deployment) limit counted: failed
 * authentication, unknown routes, health checks. They are counted per client address at the free
 * plan's rate, so guessing tokens or probing routes is limited like any free user.
 */

/**
 * Never refused and not counted, only described: load balancers probe health and scrapers poll
 * /metrics every few seconds (a refused metrics token is counted by the metrics endpoint itself),
 * documents are static, and the payment provider's webhook deliveries must not be turned away
 * (they are authenticated by their signature instead).
 */
const UNCOUNTED = new Set(['/healthz', '/readyz', '/metrics', '/v1/billing/webhook', '/v1/openapi.json', '/v1/reference', '/v1/docs']);

function isUncountedPath(path: string): boolean {
  return UNCOUNTED.has(path) || path.startsWith('/v1/schemas/');
}

export function addressKey(clientIp: string): string {
  return `ip:${clientIp}`;
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

/**
 * Gives the response of a request nothing else counted its rate-limit headers, and turns it into
 * a 429 when its address is over the limit.
 */
export async function limitUnidentified(
  limiter: RateLimiter,
  scope: { headers: RateLimitHeaders; clientIp: string },
  path: string,
  response: Reply,
): Promise<Reply> {
  if (hasRateLimitHeaders(scope.headers)) return response;
  const key = addressKey(scope.clientIp);
  if (isUncountedPath(path)) {
    Object.assign(scope.headers, await limiter.peek(key, 'free'));
    return response;
  }
  try {
    await limitInto(scope.headers, limiter, key, 'free');
    return response;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await discardReply(response);
    return path === '/graphql' ? graphqlErrorReply(error) : errorResponse(error);
  }
}
