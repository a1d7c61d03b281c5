import type { Incoming } from '../http/incoming.js';
import { textResponse, type Reply } from '../http/text-response.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import type { MetricsRegistry, RateLimitKind } from './registry.js';

/**
 * GET /metrics and the hooks that feed the registry from outside the request path.
 *
 * With METRICS_TOKEN set a scrape must send it as a bearer token. Without it the endpoint is open
 * outside production (development, tests) and refused in production, where an open endpoint would
 * show anyone the routes, traffic and pool of the service (docs/operations.md).
 * Scrapes are never counted against a rate limit (a scraper polls like a load balancer), but a
 * refused token is, per client address, so the token cannot be guessed at full speed.
 */

export const METRICS_PATH = '/metrics';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function createMetricsEndpoint(deps: {
  registry: MetricsRegistry;
  /** The gauges read at each scrape (the database pool's, from the composition root). */
  gauges: () => Parameters<MetricsRegistry['render']>[0];
  token: string | null;
  production: boolean;
}) {
  // Comparing digests keeps the comparison constant-time even when the lengths differ.
  const expected = deps.token === null ? null : digest(deps.token);

  /** `onRefused` counts a refused token against the caller's address (and may throw 429). */
  return async function serveMetrics(request: Incoming, onRefused: () => Promise<void>): Promise<Reply> {
    if (request.method !== 'GET') {
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${METRICS_PATH}; use GET`,
        { allowed: ['GET'] },
        { Allow: 'GET' },
      );
    }
    if (expected === null && deps.production) {
      await onRefused();
      throw new AppError('FORBIDDEN', `${METRICS_PATH} is disabled in production until METRICS_TOKEN is set`, {
        reason: 'metrics_token_not_configured',
      });
    }
    if (expected) {
      const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
      if (!timingSafeEqual(digest(given), expected)) {
        await onRefused();
        throw new AppError(
          'UNAUTHORIZED',
          `${METRICS_PATH} needs Authorization: Bearer <METRICS_TOKEN>`,
          {},
          { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        );
      }
    }
    const body = deps.registry.render(deps.gauges());
    return textResponse(body, { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } });
  };
}

/** The budget a rate-limit key belongs to (keys are `user:…`, `session:…`, `anon:…` and `ip:…`). */
function rateLimitKindOf(key: string): RateLimitKind {
  if (key.startsWith('user:')) return 'user';
  if (key.startsWith('session:')) return 'session';
  if (key.startsWith('anon:')) return 'anon';
  return 'address';
}

/** The limiter, counting each refusal in the registry by the kind of budget that ran out. */
export function countingRefusals(limiter: RateLimiter, registry: MetricsRegistry): RateLimiter {
  return {
    ...limiter,
    async consume(key, budget, points) {
      try {
        return await limiter.consume(key, budget, points);
      } catch (error) {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') registry.rateLimited(rateLimitKindOf(key));
        throw error;
      }
    },
  };
}
