import { Redis } from 'ioredis';

/** The Redis the suites share counters in (loopback only). */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** Whether Redis answers a PING within half a second; suites that need it skip otherwise. */
export async function redisReachable(url = REDIS_URL): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
