import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RateBudget } from './plans.js';

/**
 * Request rate limits (spec section 8): two fixed windows per key, a minute and an hour, counted
 * in Redis when REDIS_URL is set (one limit across every instance) or in memory otherwise.
 *
 * The windows count requests, not plans: the limit is compared here, so a user whose plan changes
 * keeps the requests already counted and simply gets the new ceiling.
 *
 * When Redis cannot be reached each instance falls back to its own in-memory counters with the
 * same limits (rate-limiter-flexible's insurance limiter). Availability wins over strictness: the
 * service keeps answering, and the worst case is each instance allowing the full limit by itself
 * until Redis is back. Requests never wait on a dead Redis: commands fail at once while the
 * connection is down, and a hung one gives up after COMMAND_TIMEOUT_MS.
 */

export type RateLimitHeaders = Record<string, string>;

export interface RateLimitConfig {
  redisUrl: string | null;
  /** Prefix of every Redis key, so environments (and test runs) can share one Redis. */
  keyPrefix: string;
  /** `report` counts and sends the headers but never refuses (load tests, test suites). */
  mode: 'enforce' | 'report';
  log: Logger;
}

export interface RateLimiter {
  /**
   * Counts `points` requests (default one) of `key` against `budget` (src/limits/plans.ts,
   * rateBudget); throws RATE_LIMITED (with the headers) over either window.
   */
  consume(key: string, budget: RateBudget, points?: number): Promise<RateLimitHeaders>;
  /** The headers of `key` without counting a request. */
  peek(key: string, budget: RateBudget): Promise<RateLimitHeaders>;
  close(): Promise<void>;
}

const WINDOWS = [
  { name: 'minute', seconds: 60, limit: (budget: RateBudget) => budget.perMinute },
  { name: 'hour', seconds: 3600, limit: (budget: RateBudget) => budget.perHour },
] as const;

// The windows only count; the comparison with the plan's limit is ours.
const UNBOUNDED = 2 ** 31 - 1;
const CONNECT_TIMEOUT_MS = 1000;
const COMMAND_TIMEOUT_MS = 500;
const OUTAGE_LOG_INTERVAL_MS = 30_000;

interface WindowState {
  limit: number;
  consumed: number;
  msBeforeNext: number;
  seconds: number;
}

function headersOf(state: WindowState): RateLimitHeaders {
  const reset = state.consumed > 0 && state.msBeforeNext > 0 ? Math.ceil(state.msBeforeNext / 1000) : state.seconds;
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(Math.max(state.limit - state.consumed, 0)),
    'X-RateLimit-Reset': String(reset),
  };
}

/** The headers describe the window closest to refusing (fewest requests left); the minute on a tie. */
function tighter(a: WindowState, b: WindowState): WindowState {
  return b.limit - b.consumed < a.limit - a.consumed ? b : a;
}

function refused(state: WindowState, window: string): AppError {
  const headers: RateLimitHeaders = { ...headersOf(state), 'X-RateLimit-Remaining': '0' };
  const retryAfter = headers['X-RateLimit-Reset']!;
  return new AppError(
    'RATE_LIMITED',
    `too many requests: the limit is ${state.limit} per ${window}; retry in ${retryAfter} s`,
    { limit: state.limit, window, retryAfterSeconds: Number(retryAfter) },
    { ...headers, 'Retry-After': retryAfter },
  );
}

async function connectRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Queued commands would make requests wait for a Redis that may never come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let lastLogged = 0;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (now - lastLogged < OUTAGE_LOG_INTERVAL_MS) return;
    lastLogged = now;
    log.warn({ err: err.message }, 'redis unreachable: rate limits are counted per instance until it is back');
  });
  redis.on('ready', () => {
    if (lastLogged) log.info('redis reachable again: rate limits are shared across instances');
    lastLogged = 0;
  });
  try {
    await redis.connect();
  } catch {
    // Start anyway: the insurance limiter covers the outage and ioredis keeps reconnecting.
  }
  return redis;
}

export async function createRateLimiter(config: RateLimitConfig): Promise<RateLimiter> {
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, config.log) : null;
  const limiters = WINDOWS.map((w) => {
    const keyPrefix = `${config.keyPrefix}rl:${w.name}`;
    const memory = new RateLimiterMemory({ points: UNBOUNDED, duration: w.seconds, keyPrefix });
    if (!redis) return memory as RateLimiterAbstract;
    return new RateLimiterRedis({
      storeClient: redis,
      points: UNBOUNDED,
      duration: w.seconds,
      keyPrefix,
      insuranceLimiter: memory,
      rejectIfRedisNotReady: true,
    });
  });

  const stateOf = (i: number, budget: RateBudget, res: RateLimiterRes | null): WindowState => ({
    limit: WINDOWS[i]!.limit(budget),
    consumed: res?.consumedPoints ?? 0,
    msBeforeNext: res?.msBeforeNext ?? 0,
    seconds: WINDOWS[i]!.seconds,
  });

  return {
    async consume(key, budget, points = 1) {
      // The hour is only charged for requests the minute let through, so a client that
      // ignores Retry-After for a while does not also lose its hourly allowance.
      const minute = stateOf(0, budget, await limiters[0]!.consume(key, points));
      if (minute.consumed > minute.limit && config.mode === 'enforce') throw refused(minute, 'minute');
      const hour = stateOf(1, budget, await limiters[1]!.consume(key, points));
      if (hour.consumed > hour.limit && config.mode === 'enforce') throw refused(hour, 'hour');
      return headersOf(tighter(minute, hour));
    },
    async peek(key, budget) {
      const [m, h] = await Promise.all(limiters.map((l) => l.get(key)));
      return headersOf(tighter(stateOf(0, budget, m ?? null), stateOf(1, budget, h ?? null)));
    },
    async close() {
      if (redis) redis.disconnect();
    },
  };
}

/** Counts the request in `headers` (the request scope's); a refusal leaves its headers there too. */
export async function limitInto(
  headers: RateLimitHeaders,
  limiter: RateLimiter,
  key: string,
  budget: RateBudget,
  points = 1,
): Promise<void> {
  try {
    Object.assign(headers, await limiter.consume(key, budget, points));
  } catch (error) {
    if (error instanceof AppError) Object.assign(headers, error.headers);
    throw error;
  }
}

export function hasRateLimitHeaders(headers: RateLimitHeaders): boolean {
  return 'X-RateLimit-Limit' in headers;
}
