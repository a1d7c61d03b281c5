import { Prisma } from '@prisma/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDbError } from '../../src/db/errors.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { AppError, registerErrorTranslator } from '../../src/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { OwnPostgres } from '../helpers/own-postgres.js';
import { sampleManifest } from '../helpers/workflows.js';
import { adminSession, faultsUnavailable, migratedCluster, sleep } from './harness.js';

/**
 * The database failures that used to come out as 500 INTERNAL_ERROR, each as the driver, the
 * adapter or Prisma reports it: every one is now 503 SERVICE_UNAVAILABLE with Retry-After,
 * through the one error table. First as each layer shapes them, then produced for real on a
 * private server: an exhausted pool (P2028) and a connection cut inside a transaction.
 */

const clientVersion = '6.19.3';

function pgError(message: string, code: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

/** The adapter's error: its kind in `cause`, as @prisma/adapter-pg throws it. */
function adapterError(kind: string): Error {
  const error = new Error(kind);
  error.name = 'DriverAdapterError';
  (error as { cause?: unknown }).cause = { kind };
  return error;
}

const unavailable: [string, unknown][] = [
  [
    'Prisma P1017 "Server has closed the connection."',
    new Prisma.PrismaClientKnownRequestError('Server has closed the connection.', { code: 'P1017', clientVersion }),
  ],
  ['DriverAdapterError ConnectionClosed', adapterError('ConnectionClosed')],
  ['DriverAdapterError SocketTimeout', adapterError('SocketTimeout')],
  ['DriverAdapterError DatabaseNotReachable', adapterError('DatabaseNotReachable')],
  ['DriverAdapterError TooManyConnections', adapterError('TooManyConnections')],
  [
    'Prisma P2028 exhausted pool',
    new Prisma.PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', {
      code: 'P2028',
      clientVersion,
    }),
  ],
  [
    'Prisma P2028 expired transaction',
    new Prisma.PrismaClientKnownRequestError(
      'Transaction API error: A commit cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms, however 5012 ms passed since the start of the transaction.',
      { code: 'P2028', clientVersion },
    ),
  ],
  [
    'Prisma P2024 pool timeout',
    new Prisma.PrismaClientKnownRequestError('Timed out fetching a new connection from the connection pool.', {
      code: 'P2024',
      clientVersion,
    }),
  ],
  [
    'Prisma P1008 operation timed out',
    new Prisma.PrismaClientKnownRequestError('Operation has timed out', { code: 'P1008', clientVersion }),
  ],
  ['pg "Connection terminated unexpectedly"', new Error('Connection terminated unexpectedly')],
  ['pg 57014 statement cancelled', pgError('canceling statement due to user request', '57014')],
  ['pg 57014 statement_timeout', pgError('canceling statement due to statement timeout', '57014')],
  ['pg 55P03 lock_timeout', pgError('canceling statement due to lock timeout', '55P03')],
  ['pg 57P01 administrator shutdown', pgError('terminating connection due to administrator command', '57P01')],
  ['pg 53300 too many connections', pgError('sorry, too many clients already', '53300')],
  [
    'Prisma P2010 wrapping a cancelled statement',
    new Prisma.PrismaClientKnownRequestError('Raw query failed. Code: `57014`. Message: `canceling statement due to user request`', {
      code: 'P2010',
      clientVersion,
      meta: { driverAdapterError: { cause: { originalCode: '57014', kind: 'postgres' } } },
    }),
  ],
];

describe('database unavailability in the error table', () => {
  // As the composition does (src/app.ts): the table knows the database only through its translator.
  beforeAll(() => registerErrorTranslator(describeDbError));

  it.each(unavailable)('%s is 503 SERVICE_UNAVAILABLE with Retry-After', (_name, error) => {
    const app = AppError.from(error);
    expect(app.code).toBe('SERVICE_UNAVAILABLE');
    expect(app.status).toBe(503);
    expect(app.headers['Retry-After']).toMatch(/^\d+$/);
    expect(app.unexpected).toBe(false);
  });

  it('leaves programming errors of the transaction API unexpected (500)', () => {
    const app = AppError.from(
      new Prisma.PrismaClientKnownRequestError('Transaction API error: Internal Consistency Error: bad state', {
        code: 'P2028',
        clientVersion,
      }),
    );
    expect([app.code, app.unexpected]).toEqual(['INTERNAL_ERROR', true]);
  });
});

describe.skipIf(faultsUnavailable !== null)(`database failures produced for real (${faultsUnavailable ?? 'own PostgreSQL'})`, () => {
  let server: OwnPostgres;
  let db: Database;
  let t: TestApp;

  // Not the serviceTest fixture: the service runs on a PostgreSQL server of its own, whose connections
  // the test terminates, with a pool of one connection.
  beforeAll(async () => {
    server = await migratedCluster();
    db = await openDatabase({ databaseUrl: server.url, dataDir: '', poolSize: 1 });
    t = await startTestApp({ database: { db, url: server.url, drop: () => db.close() } });
  }, 90_000);

  afterAll(async () => {
    await t?.close();
    await db?.close();
    await server?.destroy();
  }, 60_000);

  it('answers an exhausted pool (P2028) with 503 and Retry-After', async () => {
    const token = await t.token('exhausted@example.com');
    expect((await t.call('GET', '/v1/users/me', { token })).status).toBe(200);
    let release!: () => void;
    let held = new Promise<void>((r) => (release = r));
    // The pool's only connection, held by a transaction: a request finds no connection in time.
    let holding = db.prisma.$transaction(() => held, { timeout: 15_000 });
    await sleep(200);
    try {
      const created = await t.call('POST', '/v1/workflows', { token, body: { name: 'No room', manifest: sampleManifest() } });
      expect([created.status, created.body.error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
      expect(created.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      release();
      await holding;
    }
    // Prisma's own P2028: the connection comes free after the transaction's maxWait (2 s) has passed.
    held = new Promise<void>((r) => (release = r));
    holding = db.prisma.$transaction(() => held, { timeout: 15_000 });
    await sleep(200);
    const late = db.prisma.$transaction(async () => 'started').catch((error: unknown) => error);
    await sleep(2500);
    release();
    await holding;
    const raw = await late;
    expect(raw).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((raw as Prisma.PrismaClientKnownRequestError).code).toBe('P2028');
    expect((raw as Error).message).toMatch(/Unable to start a transaction in the given time/);
    expect(AppError.from(raw).code).toBe('SERVICE_UNAVAILABLE');
    await sleep(100);
    expect(db.poolStats().total - db.poolStats().idle).toBe(0);
    expect((await t.call('POST', '/v1/workflows', { token, body: { name: 'Room again', manifest: sampleManifest() } })).status).toBe(201);
  }, 30_000);

  it('answers a connection cut inside a transaction with 503, and the pool recovers', async () => {
    const admin = await adminSession(server);
    try {
      const failure = await db.prisma
        .$transaction(async (tx) => {
          const rows = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          await sleep(100);
          return tx.$queryRaw`SELECT 1`;
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      const app = AppError.from(failure);
      expect([app.code, app.status], String(failure)).toEqual(['SERVICE_UNAVAILABLE', 503]);
      const stats = db.poolStats();
      expect(stats.total - stats.idle).toBe(0);
      const token = await t.token('cut@example.com');
      expect((await t.call('GET', '/v1/workflows', { token })).status).toBe(200);
    } finally {
      await admin.end();
    }
  }, 30_000);
});
