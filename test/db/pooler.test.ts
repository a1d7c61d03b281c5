import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDatabase, pgRunner, poolerMode, type Database } from '../../src/db/index.js';
import { applyMigrations, listMigrations, pendingMigrations } from '../../src/db/migrations.js';
import type { Statement } from '../../src/db/statement.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';

/**
 * What running behind a transaction-pooling PgBouncer needs of the database layer. The CI runs
 * the PostgreSQL suite a second time through PgBouncer 1.18 with `?pgbouncer=true`; there these
 * tests go through the pooler, elsewhere straight to PostgreSQL (where they must hold too).
 */
describe('the pgbouncer parameter of DATABASE_URL', () => {
  it('asks for unnamed statements and is taken off the URL the driver sees', () => {
    expect(poolerMode('postgres://u@127.0.0.1:6432/app?pgbouncer=true')).toEqual({
      url: 'postgres://u@127.0.0.1:6432/app',
      namedStatements: false,
    });
    expect(poolerMode('postgres://u@127.0.0.1:6432/app?sslmode=disable&pgbouncer=false')).toEqual({
      url: 'postgres://u@127.0.0.1:6432/app?sslmode=disable',
      namedStatements: true,
    });
    expect(poolerMode('postgres://u@127.0.0.1:5432/app')).toEqual({ url: 'postgres://u@127.0.0.1:5432/app', namedStatements: true });
  });

  it('refuses a value other than true or false', () => {
    expect(() => poolerMode('postgres://u@127.0.0.1:6432/app?pgbouncer=yes')).toThrow(/pgbouncer must be true or false \(got 'yes'\)/);
  });
});

const onPostgres = testDatabaseKind() === 'postgres';

describe.skipIf(!onPostgres)('statements and migrations through the configured connection (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 10 });
    db = database.db;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers every one of many concurrent reads of several statements', async () => {
    // Through a transaction pooler, a statement prepared by name on one server connection and
    // executed on another fails ("prepared statement … does not exist" / "already exists"):
    // 20 callers over a pool of 10 and 5 statements mix them on every connection.
    const statements: Statement[] = Array.from({ length: 5 }, (_, i) => ({
      name: `pooler_probe_${i}`,
      text: `SELECT $1::int + ${i} AS n`,
    }));
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, caller) => {
        const got: number[] = [];
        for (let i = 0; i < 50; i += 1) {
          const k = (i + caller) % statements.length;
          const rows = await db.read<{ n: number }>(statements[k]!, [i]);
          got.push(rows[0]!.n - i - k);
        }
        return got;
      }),
    );
    expect(answers.flat()).toEqual(Array.from({ length: 1000 }, () => 0));
  });

  it('keeps a Prisma transaction on one server connection', async () => {
    const pids = await db.prisma.$transaction(async (tx) => {
      const seen = new Set<number>();
      for (let i = 0; i < 5; i += 1) {
        const [row] = await tx.$queryRaw<{ pid: number; xid: string }[]>`SELECT pg_backend_pid() AS pid, txid_current()::text AS xid`;
        seen.add(row!.pid);
      }
      return seen;
    });
    expect(pids.size).toBe(1);
  });

  it('lets two migration runners at once on an empty database apply each migration once', async () => {
    const admin = inject('adminDatabaseUrl');
    const name = `${inject('testDatabasePrefix')}_mig_${randomBytes(4).toString('hex')}`;
    const direct = new pg.Client({ connectionString: admin });
    await direct.connect();
    await direct.query(`CREATE DATABASE ${name}`);
    // The runners connect as the service does (DATABASE_URL: through the pooler in its CI stage).
    const url = new URL(database.url!);
    url.pathname = `/${name}`;
    const runnerUrl = poolerMode(url.toString()).url;
    const clients = [new pg.Client({ connectionString: runnerUrl }), new pg.Client({ connectionString: runnerUrl })];
    try {
      await Promise.all(clients.map((c) => c.connect()));
      const applied = await Promise.all(clients.map((c) => applyMigrations(pgRunner(c))));
      const all = listMigrations().map((m) => m.name);
      expect([...applied[0]!, ...applied[1]!].sort()).toEqual([...all].sort());
      expect(await pendingMigrations(pgRunner(clients[0]!))).toEqual([]);
      const { rows } = await clients[0]!.query<{ n: string }>(`SELECT count(*) AS n FROM "_prisma_migrations"`);
      expect(Number(rows[0]!.n)).toBe(all.length);
      // The service opens on it: nothing pending.
      const opened = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
      await opened.close();
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => {})));
      await direct.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await direct.end();
    }
  });
});
