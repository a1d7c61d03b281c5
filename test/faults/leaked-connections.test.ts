import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { OwnPostgres } from '../helpers/own-postgres.js';
import { sampleManifest } from '../helpers/workflows.js';
import { adminSession, faultsUnavailable, migratedCluster, sleep, waitingOnLocks } from './harness.js';

/**
 * The database crashes while every pool connection is inside a transaction (each waits on a row
 * lock the test holds). Prisma's transaction manager sends ROLLBACK on the dead connection, which
 * throws, and used to skip the one call that gives the connection back to the pool: after a few
 * crashes no connection was left and every request waited for one in vain. Now each crash costs
 * the requests in flight a 503 and nothing else: the pool's checked-out count returns to what is
 * in flight, and requests succeed once the server is back.
 */

const POOL_SIZE = 4;
const CRASHES = 3;
/** How long the server stays down in each crash. */
const DOWN_MS = 500;
/** How soon after the server is back the checked-out count must be back to zero. */
const RETURN_BOUND_MS = 3000;

const checkedOut = (db: Database) => {
  const s = db.poolStats();
  return s.total - s.idle;
};

describe.skipIf(faultsUnavailable !== null)(`a crash inside transactions (${faultsUnavailable ?? 'own PostgreSQL'})`, () => {
  let server: OwnPostgres;
  let db: Database;
  let t: TestApp;
  let admin: pg.Client | undefined;

  // Not the serviceTest fixture: the service runs on a PostgreSQL server of its own, which the test
  // crashes, with a pool of its own size and leak bound.
  beforeAll(async () => {
    server = await migratedCluster();
    // A short leak bound, so that /healthz can be seen to fail on a connection held too long.
    db = await openDatabase({ databaseUrl: server.url, dataDir: '', poolSize: POOL_SIZE, leakAfterMs: 1500 });
    t = await startTestApp({ database: { db, url: server.url, drop: () => db.close() } });
  }, 90_000);

  afterAll(async () => {
    await admin?.end().catch(() => {});
    await t?.close();
    await db?.close();
    await server?.destroy();
  }, 60_000);

  it('gives every connection back after each crash, and serves again without a restart', async () => {
    const token = await t.token('crash@example.com');
    const created = await t.call('POST', '/v1/workflows', { token, body: { name: 'Locked', manifest: sampleManifest() } });
    expect(created.status).toBe(201);
    const workflowId = created.body.data.workflowId as string;
    const update = (i: number) =>
      t.call('PUT', `/v1/workflows/${workflowId}`, { token, body: { name: `Edit ${i}`, manifest: sampleManifest() } });

    for (let crash = 0; crash < CRASHES; crash += 1) {
      admin = await adminSession(server);
      await admin.query('BEGIN');
      await admin.query('SELECT id FROM workflows WHERE id = $1 FOR UPDATE', [workflowId]);
      // Every pool connection inside an update's transaction, waiting on the row.
      const updates = Array.from({ length: POOL_SIZE }, (_, i) => update(crash * 10 + i));
      for (let i = 0; i < 100 && (await waitingOnLocks(admin)) < POOL_SIZE; i += 1) await sleep(20);
      expect(await waitingOnLocks(admin)).toBe(POOL_SIZE);
      expect(checkedOut(db)).toBe(POOL_SIZE);

      await server.crash(DOWN_MS);
      admin = undefined;
      const answers = await Promise.all(updates);
      for (const a of answers) {
        expect([a.status, a.body?.error?.code], a.text).toEqual([503, 'SERVICE_UNAVAILABLE']);
        expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      }

      const backAt = performance.now();
      while (checkedOut(db) > 0 && performance.now() - backAt < RETURN_BOUND_MS) await sleep(50);
      expect(checkedOut(db), `crash ${crash + 1}: connections still checked out`).toBe(0);
      // A request after the crash gets a connection and succeeds (a first one may meet a
      // connection the crash cut while it sat idle: 503, then the pool has dropped it).
      let status = 0;
      for (let i = 0; i < 10 && status !== 200; i += 1) {
        status = (await update(crash * 10 + 9)).status;
        if (status !== 200) await sleep(100);
      }
      expect(status).toBe(200);
      expect((await t.call('GET', '/healthz')).status).toBe(200);
    }
    const metrics = await t.call('GET', '/metrics');
    expect(metrics.text).toMatch(/db_pool_connections\{database="postgres"\} \d+/);
    expect(checkedOut(db)).toBe(0);
  }, 90_000);

  it('fails /healthz while a connection is held past every bound, and passes again once it is back', async () => {
    expect((await t.call('GET', '/healthz')).status).toBe(200);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // A transaction that holds its connection with nothing running: what a leak looks like to the pool.
    const holding = db.prisma.$transaction(() => held, { timeout: 10_000 });
    await sleep(1800);
    const sick = await t.call('GET', '/healthz');
    expect(sick.status).toBe(503);
    expect(sick.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(sick.body.error.message).toMatch(/checked out for \d+ s/);
    expect((await t.call('GET', '/readyz')).status).toBe(503);
    release();
    await holding;
    expect((await t.call('GET', '/healthz')).status).toBe(200);
    expect((await t.call('GET', '/readyz')).status).toBe(200);
  }, 30_000);
});
