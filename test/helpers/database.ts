import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';

export function testDatabaseKind(): 'postgres' | 'pglite' {
  return inject('databaseUrl') ? 'postgres' : 'pglite';
}

export interface TestDatabase {
  db: Database;
  /** The connection URL on PostgreSQL, null on PGlite. */
  url: string | null;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file (or one test). */
export async function createTestDatabase(options: { poolSize?: number; onQuery?: (sql: string) => void } = {}): Promise<TestDatabase> {
  const serviceUrl = inject('databaseUrl');
  const adminUrl = inject('adminDatabaseUrl');
  if (!serviceUrl) {
    const db = await openDatabase({ databaseUrl: null, dataDir: '', inMemory: true, onQuery: options.onQuery });
    return { db, url: null, drop: () => db.close() };
  }
  const prefix = inject('testDatabasePrefix');
  const TEMPLATE_DB = `${prefix}_template`;
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
        break;
      } catch (error) {
        // Two files copying the template at the same instant can collide; a retry succeeds.
        if (attempt >= 5 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(serviceUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: options.poolSize ?? 10, onQuery: options.onQuery });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await cleanup.end();
    },
  };
}
