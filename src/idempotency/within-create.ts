import { AsyncLocalStorage } from 'node:async_hooks';
import type { Prisma } from '@prisma/client';

/**
 * The link between a keyed create's request and the transaction that creates its resource
 * (docs/concurrency.md, "Idempotency-Key"). The REST face runs the create inside `withClaimedKey`;
 * the service's create transaction calls `recordCreated`, which marks the key `committed` in the
 * same transaction. So when the commit happens and its acknowledgement is lost (the service saw the
 * connection die and answered 503), the key is not freed: the retry learns what was created instead
 * of creating it again.
 */

interface ClaimedKey {
  userId: string;
  keyHash: string;
}

const claimed = new AsyncLocalStorage<ClaimedKey>();

/** Runs a keyed create: transactions inside it record its resource against the key. */
export function withClaimedKey<T>(key: ClaimedKey, create: () => Promise<T>): Promise<T> {
  return claimed.run(key, create);
}

/**
 * Inside a create's transaction: the resource it creates, as the /v1 path that names it. Nothing
 * outside a keyed create.
 */
export async function recordCreated(tx: Prisma.TransactionClient, location: string): Promise<void> {
  const key = claimed.getStore();
  if (!key) return;
  await tx.$executeRaw`UPDATE idempotency_keys SET state = 'committed', location = ${location}
    WHERE user_id = ${key.userId} AND key_hash = ${key.keyHash} AND state = 'in_flight'`;
}
