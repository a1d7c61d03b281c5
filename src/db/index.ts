import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { PrismaClient } from '@prisma/client';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { applyMigrations, pendingMigrations, type SqlRunner } from './migrations.js';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  /** Resolves when the database answers a trivial query within the timeout. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PGlite only: keep everything in memory (tests). */
  inMemory?: boolean;
  /** PostgreSQL only: connections in the pool. */
  poolSize?: number;
  /** Called for every SQL statement Prisma sends (statement counting in tests, metrics). */
  onQuery?: (sql: string) => void;
}

function newClient(adapter: PrismaPg, onQuery?: (sql: string) => void): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const client = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query' as never, (event: { query: string }) => onQuery(event.query));
  return client;
}

// The PGlite adapter's ESM entry does not load under Node's resolver; its CommonJS build does.
const require = createRequire(import.meta.url);
const { PrismaPGlite } = require('pglite-prisma-adapter') as typeof import('pglite-prisma-adapter');

export function pgliteRunner(db: PGlite): SqlRunner {
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
    async ping(timeoutMs = 2000) {
      await withTimeout(lite.query('SELECT 1'), timeoutMs, 'database did not answer in time');
    },
    async close() {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A request during a database outage must fail fast rather than hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  const pending = await pendingMigrations(pgRunner(pool));
  if (pending.length > 0) {
    await pool.end();
    throw new Error(`the database has ${pending.length} migration(s) not applied (${pending.join(', ')}): run npm run db:migrate first`);
  }
  const prisma = newClient(new PrismaPg(pool), options.onQuery);
  return {
    kind: 'postgres',
    prisma,
    async ping(timeoutMs = 2000) {
      await withTimeout(pool.query('SELECT 1'), timeoutMs, 'database did not answer in time');
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openPglite(options);
}
