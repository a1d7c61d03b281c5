import type { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { cancelRunningStatement } from './pg-cancel.js';

/**
 * Prisma's interactive transactions over `@prisma/adapter-pg`, made to give their pool connection
 * back whatever happens to them (docs/decisions.md, "Transactions that always release").
 *
 * Prisma 6.19's transaction manager ends a transaction by sending `COMMIT` or `ROLLBACK` through
 * it and only then calling its `commit()` / `rollback()`, the one place where the adapter releases
 * the `pg` client. When that statement throws (the connection died with the server, or was given
 * up by the query bound), the release is skipped and the connection stays checked out for good;
 * a few crashes leave the pool empty and every request waits for a connection that never comes.
 * When the transaction's own timeout fires, the manager's timer awaits the `ROLLBACK`, and its
 * failure there is an unhandled rejection.
 *
 * Here the adapter's transactions are wrapped so that:
 * - a failed `ROLLBACK` releases the connection as broken (the pool closes it; the server rolls
 *   back a transaction whose connection is gone) and resolves, so nothing is left unhandled;
 * - a failed `COMMIT` releases the connection before its error goes on to the caller;
 * - a `ROLLBACK` asked for while a statement of the same transaction is still running (the
 *   transaction's timeout fired while it waited on a lock) first cancels that statement, so the
 *   rollback runs at once instead of queueing behind it;
 * - `commit()` / `rollback()` after such a release do nothing, so the client is never released twice.
 */

type Adapter = Awaited<ReturnType<PrismaPg['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;
type SqlQuery = Parameters<Transaction['executeRaw']>[0];

/** Longest wait for the server to take a cancel request before the connection is given up instead. */
const CANCEL_DELIVERY_MS = 1000;

const isEnd = (sql: string, word: 'COMMIT' | 'ROLLBACK') => sql.trim().toUpperCase() === word;

function releasing(tx: Transaction): Transaction {
  // The adapter's transaction holds its pool client as `client` (checked when wrapped).
  const held = (tx as unknown as { client?: pg.PoolClient }).client;
  if (!held || typeof held.release !== 'function') return tx;
  const client: pg.PoolClient = held;
  let released = false;
  let running = 0;

  const releaseBroken = (error: unknown) => {
    if (released) return;
    released = true;
    // With an error, pg-pool closes the client instead of handing it to the next request.
    client.release(error instanceof Error ? error : new Error(String(error)));
  };

  async function run<T>(query: SqlQuery, send: () => Promise<T>): Promise<T> {
    if (released) {
      // Released as broken: the server has rolled back; nothing may be sent on the client any more.
      if (isEnd(query.sql, 'ROLLBACK')) return 0 as T;
      throw new Error('Connection terminated: the transaction was given up');
    }
    if (isEnd(query.sql, 'ROLLBACK') && running > 0) await cancelRunningStatement(client, CANCEL_DELIVERY_MS);
    running += 1;
    try {
      return await send();
    } catch (error) {
      if (isEnd(query.sql, 'ROLLBACK')) {
        releaseBroken(error);
        return 0 as T;
      }
      if (isEnd(query.sql, 'COMMIT')) releaseBroken(error);
      throw error;
    } finally {
      running -= 1;
    }
  }

  return new Proxy(tx, {
    get(target, property, receiver) {
      if (property === 'executeRaw') return (query: SqlQuery) => run(query, () => target.executeRaw(query));
      if (property === 'queryRaw') return (query: SqlQuery) => run(query, () => target.queryRaw(query));
      if (property === 'commit' || property === 'rollback') {
        return async () => {
          if (released) return;
          released = true;
          await target[property]();
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The adapter factory Prisma is given: PrismaPg, whose transactions always release their client. */
export function releasingAdapter(factory: PrismaPg): PrismaPg {
  return new Proxy(factory, {
    get(target, property, receiver) {
      if (property !== 'connect') {
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async () => {
        const adapter = await target.connect();
        return new Proxy(adapter, {
          get(inner, name, innerReceiver) {
            if (name === 'startTransaction') {
              return async (...args: Parameters<Adapter['startTransaction']>) => releasing(await inner.startTransaction(...args));
            }
            const value = Reflect.get(inner, name, innerReceiver) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(inner) : value;
          },
        });
      };
    },
  });
}
