import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PrismaClient } from '@prisma/client';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { applyMigrations, pendingMigrations, type SqlRunner } from './migrations.js';
import { cancelRunningStatement } from './pg-cancel.js';
import { releasingAdapter } from './releasing-transactions.js';
import type { Statement } from './statement.js';
import { ShapedQuery } from './shaped-query.js';
import { poolTypes } from './type-parsers.js';

type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  /** Runs a named statement with its parameters and returns the rows (columns as named in the SQL). */
  read<T>(statement: Statement, values: readonly unknown[]): Promise<T[]>;
  /**
   * Runs a statement built for one request (a Prisma.sql template: `text` and `values`) unnamed, so
   * that PostgreSQL plans it for its values every time, and returns the rows as `read` does. For
   * reads whose best plan depends on the values (a search word, a category), which a named
   * statement's generic plan would fix once for all; sent by the service itself, without the work
   * Prisma's raw queries do around each call.
   */
  readUnnamed<T>(sql: { text: string; values: readonly unknown[] }): Promise<T[]>;
  /** Resolves when the database answers a trivial query within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  /** Connection use for /metrics: the pg pool's counts, or PGlite's one in-process connection. */
  poolStats(): { total: number; idle: number; waiting: number; max: number };
  /**
   * Whether this instance can still recover by itself (/healthz): false once a pool connection
   * has been checked out longer than any transaction and query may hold it, i.e. it leaked and
   * the pool will not get it back. Answers from memory, without asking the database.
   */
  health(): { ok: true } | { ok: false; reason: string };
  /**
   * Cancels the statements still running (their requests get a 503), gives up the connections
   * still checked out, and closes the pool; bounded in time whatever the database does.
   */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
  /** PostgreSQL only: connections in the pool. */
  poolSize?: number;
  /** PostgreSQL only: how long a query may go unanswered before its connection is given up (QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
  /**
   * PostgreSQL only: how long a pool connection may stay checked out before /healthz calls the
   * instance wedged. Default: the longest transaction bound plus two query bounds.
   */
  leakAfterMs?: number;
  /** Called for every SQL statement Prisma sends (statement counting in tests, metrics). */
  onQuery?: (sql: string) => void;
}

type TransactionOptions = { maxWait: number; timeout: number };

function newClient(adapter: PrismaPg, onQuery?: (sql: string) => void, transactionOptions?: TransactionOptions): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter, transactionOptions });
  const client = new PrismaClient({ adapter, transactionOptions, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query' as never, (event: { query: string }) => onQuery(event.query));
  return client;
}

// The PGlite adapter's ESM entry does not load under Node's resolver; its CommonJS build does.
const require = createRequire(import.meta.url);
const { PrismaPGlite } = require('pglite-prisma-adapter') as typeof import('pglite-prisma-adapter');

function pgliteRunner(db: PGlite): SqlRunner {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await db.query(sql, params as never[])).rows as T[];
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

export function pgRunner(client: pg.Pool | pg.Client): SqlRunner {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await client.query(sql, params)).rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  let dataPath: string | undefined;
  if (!options.inMemory) {
    dataPath = resolve(join(options.dataDir, 'pglite'));
    mkdirSync(dataPath, { recursive: true });
  }
  const lite = dataPath ? new PGlite(dataPath) : new PGlite();
  await lite.waitReady;
  // The embedded database belongs to this process, so it is brought up to date at start.
  await applyMigrations(pgliteRunner(lite));
  // The adapter is typed against an older copy of Prisma's adapter interfaces; at run time they match.
  const prisma = newClient(new PrismaPGlite(lite) as unknown as PrismaPg, options.onQuery);
  return {
    kind: 'pglite',
    prisma,
    async read<T>(statement: Statement, values: readonly unknown[]) {
      options.onQuery?.(statement.text);
      return (await lite.query<T>(statement.text, values as unknown[])).rows;
    },
    async readUnnamed<T>(sql: { text: string; values: readonly unknown[] }) {
      options.onQuery?.(sql.text);
      return (await lite.query<T>(sql.text, sql.values as unknown[])).rows;
    },
    async ping(timeoutMs = 2000) {
      await withTimeout(lite.query('SELECT 1'), timeoutMs, 'database did not answer in time');
    },
    poolStats() {
      return { total: 1, idle: 1, waiting: 0, max: 1 };
    },
    health() {
      return { ok: true };
    },
    async close() {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}

/**
 * The default query bound (QUERY_TIMEOUT_MS): a query unanswered for this long means the server
 * or the network is gone (a frozen host, a partition: the socket stays open and nothing arrives).
 * Every query of the service takes milliseconds; the slowest legitimate ones (an account deletion)
 * take a few seconds.
 */
const QUERY_TIMEOUT_MS = 10_000;

/**
 * A transaction's bound, below the query bound: a transaction that waits (a row lock held by
 * another session) is rolled back, its waiting statement cancelled, before any of its statements
 * reaches QUERY_TIMEOUT_MS. Half of it, so the default (10 s) keeps Prisma's own default of 5 s.
 * Waiting for a connection to start one (maxWait) is bounded as Prisma's default does, 2 s; the
 * exhausted pool then answers P2028, a 503.
 */
function transactionBounds(queryTimeoutMs: number): TransactionOptions {
  const timeout = Math.max(500, Math.floor(queryTimeoutMs / 2));
  return { timeout, maxWait: Math.min(2000, timeout) };
}

/**
 * The longest an explicit transaction bound may be (account deletion, src/users/deletion.ts); a
 * connection checked out longer than this plus two query bounds is no longer held by anything.
 */
const LONGEST_TRANSACTION_MS = 30_000;

/** How long the server gets to act on a cancel request before the connection is given up. */
const CANCEL_GRACE_MS = 1000;

type Stream = { destroy(): void };
const socketOf = (client: pg.ClientBase) => (client as unknown as { connection?: { stream?: Stream } }).connection?.stream;

/** Which pool clients are running a statement, so that closing the pool can cancel them. */
type Running = Map<pg.PoolClient, number>;

/**
 * Bounds every query of a pooled connection. On expiry the statement is cancelled on the server
 * first (a cancel request, src/db/pg-cancel.ts): the backend stops working and waiting for a
 * client that gave up, so a held lock does not leave a blocked backend behind each replaced
 * connection. If the statement has not ended a second later (a frozen server, a partition), the
 * socket is destroyed: the query and any queued behind it fail at once (a SERVICE_UNAVAILABLE),
 * the pool never hands the connection out again, and the server rolls back whatever transaction
 * it held. Abandoning the query alone (pg's query_timeout) would return a connection to the pool
 * that is still busy, possibly inside a transaction a later request could commit.
 */
function boundQueries(client: pg.PoolClient, timeoutMs: number, running: Running): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    let settled = false;
    running.set(client, (running.get(client) ?? 0) + 1);
    const timer = setTimeout(() => {
      void cancelRunningStatement(client, CANCEL_GRACE_MS).then((delivered) => {
        if (settled) return;
        // Not delivered (a frozen or unreachable server): nothing will answer; give up at once.
        if (!delivered) socketOf(client)?.destroy();
        else
          setTimeout(() => {
            if (!settled) socketOf(client)?.destroy();
          }, CANCEL_GRACE_MS).unref();
      });
    }, timeoutMs);
    timer.unref();
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const left = (running.get(client) ?? 1) - 1;
      if (left > 0) running.set(client, left);
      else running.delete(client);
    };
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...result: unknown[]) => {
        done();
        (last as (...r: unknown[]) => void)(...result);
      };
      return query(...args);
    }
    const out = query(...args);
    if (out instanceof Promise) out.then(done, done);
    else done();
    return out;
  };
}

/** Resolves when `check` holds or after `ms`, polling every 20 ms. */
async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

/**
 * `?pgbouncer=true` on DATABASE_URL (the parameter Prisma's own documentation gives for the same
 * case) says the URL is a PgBouncer in transaction pooling mode that does not track prepared
 * statements (before 1.21, or without max_prepared_statements): every transaction may run on
 * another server connection, so a statement prepared by name on one is unknown on the next. The
 * service's statements are then sent unnamed (parsed with each execution, in the same round trip).
 * The parameter is taken off the URL before it reaches the driver.
 */
export function poolerMode(url: string): { url: string; namedStatements: boolean } {
  const parsed = new URL(url);
  const value = parsed.searchParams.get('pgbouncer');
  if (value === null) return { url, namedStatements: true };
  if (value !== 'true' && value !== 'false') throw new Error(`DATABASE_URL: pgbouncer must be true or false (got '${value}')`);
  parsed.searchParams.delete('pgbouncer');
  return { url: parsed.toString(), namedStatements: value === 'false' };
}

async function openPostgres(databaseUrl: string, options: DatabaseOptions): Promise<Database> {
  const { url, namedStatements } = poolerMode(databaseUrl);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A request during a database outage must fail fast rather than hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    // Lets the operating system notice a peer that vanished while a connection sat idle.
    keepAlive: true,
    // The service's own statements read timestamps with a faster parser (Prisma's adapter brings its own).
    types: poolTypes,
  });
  const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
  const leakAfterMs = options.leakAfterMs ?? LONGEST_TRANSACTION_MS + 2 * queryTimeoutMs;
  const running: Running = new Map();
  // When each checked-out client was taken from the pool (/healthz tells a leak from a long wait).
  const checkedOut = new Map<pg.PoolClient, number>();
  pool.on('acquire', (client) => checkedOut.set(client, Date.now()));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('remove', (client) => checkedOut.delete(client));
  pool.on('connect', (client) => {
    boundQueries(client, queryTimeoutMs, running);
    // pg-pool listens for errors only while a client is idle in the pool. A client checked out
    // between two statements (an interactive transaction) that loses its connection would emit
    // 'error' with no listener and end the process; its next query fails instead, and the pool
    // drops it when it is released with that error.
    client.on('error', () => {});
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  const pending = await pendingMigrations(pgRunner(pool));
  if (pending.length > 0) {
    await pool.end();
    throw new Error(`the database has ${pending.length} migration(s) not applied (${pending.join(', ')}): run npm run db:migrate first`);
  }
  const prisma = newClient(releasingAdapter(new PrismaPg(pool)), options.onQuery, transactionBounds(queryTimeoutMs));
  return {
    kind: 'postgres',
    prisma,
    async read<T>(statement: Statement, values: readonly unknown[]) {
      options.onQuery?.(statement.text);
      const query = namedStatements
        ? { name: statement.name, text: statement.text, values: values as unknown[] }
        : { text: statement.text, values: values as unknown[] };
      return shapedRows<T>(pool, query);
    },
    async readUnnamed<T>(sql: { text: string; values: readonly unknown[] }) {
      options.onQuery?.(sql.text);
      return shapedRows<T>(pool, { text: sql.text, values: sql.values as unknown[] });
    },
    async ping(timeoutMs = 2000) {
      await withTimeout(pool.query('SELECT 1'), timeoutMs, 'database did not answer in time');
    },
    poolStats() {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 };
    },
    health() {
      const now = Date.now();
      let oldest = 0;
      for (const since of checkedOut.values()) oldest = Math.max(oldest, now - since);
      if (oldest > leakAfterMs) {
        return {
          ok: false,
          reason: `a database connection has been checked out for ${Math.round(oldest / 1000)} s and will not come back`,
        };
      }
      return { ok: true };
    },
    async close() {
      // Statements still running are cancelled (their requests answer 503), then connections
      // still checked out a moment later are cut, so the pool's end never waits on a query.
      await Promise.all([...running.keys()].map((client) => cancelRunningStatement(client, CANCEL_GRACE_MS)));
      await until(() => checkedOut.size === 0, CANCEL_GRACE_MS);
      for (const client of checkedOut.keys()) socketOf(client)?.destroy();
      await until(() => checkedOut.size === 0, CANCEL_GRACE_MS / 2);
      await prisma.$disconnect();
      await withTimeout(pool.end(), CANCEL_GRACE_MS, 'the pool did not close in time').catch(() => {});
    },
  };
}

/** The rows of one of the service's own statements, built by a ShapedQuery. */
async function shapedRows<T>(pool: pg.Pool, statement: { name?: string; text: string; values: unknown[] }): Promise<T[]> {
  // Given a query object and no callback, pg-pool answers with a promise of its result (its
  // typings describe the streaming case, which returns the object itself).
  const result = await (pool.query(new ShapedQuery(statement)) as unknown as Promise<pg.QueryResult>);
  return result.rows as T[];
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openPglite(options);
}
