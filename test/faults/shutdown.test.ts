import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';
import type { OwnPostgres } from '../helpers/own-postgres.js';
import { serviceTest } from '../helpers/service-test.js';
import { sampleManifest } from '../helpers/workflows.js';
import {
  adminSession,
  faultsUnavailable,
  migratedCluster,
  seedWriter,
  serviceBackends,
  sleep,
  startService,
  waitingOnLocks,
  type RunningService,
} from './harness.js';

/**
 * SIGTERM with work in flight. The process used to keep serving busy connections with
 * keep-alive, cut requests at a fixed 10 s, and wait for a blocked query as long as
 * QUERY_TIMEOUT_MS (59.8 s with 60 s). Now: readiness fails at once, idle keep-alive
 * connections close, answers carry `Connection: close`, a request that can finish within
 * SHUTDOWN_GRACE_MS does, one blocked on the database is cancelled at the end of the grace
 * period and answered 503, and the process exits within the grace period plus 5 s, leaving no
 * backend behind, with QUERY_TIMEOUT_MS at 60 s.
 */

const GRACE_MS = 2000;
/** The documented bound beyond the grace period (src/main.ts, CLOSE_BOUND_MS). */
const CLOSE_BOUND_MS = 5000;

interface Reply {
  status: number | 'error';
  headers: IncomingHttpHeaders;
  at: number;
}

function call(agent: Agent, origin: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve) => {
    const req = request(`${origin}${path}`, { method, agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, at: performance.now() }));
    });
    req.once('error', () => resolve({ status: 'error', headers: {}, at: performance.now() }));
    req.setTimeout(120_000, () => req.destroy());
    req.end(body);
  });
}

describe('readiness and process faults, in process', () => {
  it('answers /readyz 503 with Retry-After as soon as draining starts, while /healthz stays 200', async () => {
    // A service of its own: draining is the subject here, and a drained service serves no other test.
    const t = await startTestApp();
    try {
      expect((await t.call('GET', '/readyz')).status).toBe(200);
      t.app.startDraining();
      const ready = await t.call('GET', '/readyz');
      expect([ready.status, ready.body.error.code, ready.body.error.details.draining]).toEqual([503, 'SERVICE_UNAVAILABLE', true]);
      expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await t.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  serviceTest('counts the unhandled rejections the process survived in /metrics', async ({ service: t }) => {
    expect((await t.call('GET', '/metrics')).text).toMatch(/^process_unhandled_rejections_total 0$/m);
    t.app.recordUnhandledRejection();
    t.app.recordUnhandledRejection();
    expect((await t.call('GET', '/metrics')).text).toMatch(/^process_unhandled_rejections_total 2$/m);
  });
});

describe.skipIf(faultsUnavailable !== null)(`SIGTERM with work in flight (${faultsUnavailable ?? 'own PostgreSQL'})`, () => {
  let server: OwnPostgres;
  let service: RunningService;
  const sessions: pg.Client[] = [];

  // Not the serviceTest fixture: SIGTERM is the subject, so the service is a process of its own, on a
  // PostgreSQL server of its own.
  beforeAll(async () => {
    server = await migratedCluster();
    service = await startService(server.url, {
      DATABASE_POOL_SIZE: '5',
      QUERY_TIMEOUT_MS: '60000',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: 'info',
    });
  }, 120_000);

  afterAll(async () => {
    for (const s of sessions) await s.end().catch(() => {});
    await service?.stop();
    await server?.destroy();
  }, 60_000);

  it('drains: finishes what can finish, cancels what cannot, closes every connection, exits in time', async () => {
    const counter = await adminSession(server);
    const rowLock = await adminSession(server);
    const tableLock = await adminSession(server);
    sessions.push(counter, rowLock, tableLock);
    const writer = await seedWriter(service, counter, 'drain@example.com');
    const { origin } = service;

    // An idle keep-alive connection, open before the signal.
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await call(idleAgent, origin, 'GET', '/healthz', {})).status).toBe(200);
    const idleSocket = Object.values(idleAgent.freeSockets)[0]![0] as Socket;
    let idleClosedAt = Infinity;
    idleSocket.once('close', () => (idleClosedAt = performance.now()));

    // A write that waits on a row lock released during the grace period, and a read that waits
    // on a table lock held past it (with QUERY_TIMEOUT_MS at 60 s, nothing else would end it).
    await rowLock.query('BEGIN');
    await rowLock.query('SELECT id FROM workflows WHERE id = $1 FOR UPDATE', [writer.workflowId]);
    await tableLock.query('BEGIN');
    await tableLock.query('LOCK TABLE deployments IN ACCESS EXCLUSIVE MODE');
    const writeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const readAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ name: 'Written while draining', manifest: sampleManifest() });
    const write = call(writeAgent, origin, 'PUT', `/v1/workflows/${writer.workflowId}`, writer.headers, body);
    const read = call(readAgent, origin, 'GET', '/v1/deployments', writer.headers);
    for (let i = 0; i < 100 && (await waitingOnLocks(counter)) < 2; i += 1) await sleep(20);
    expect(await waitingOnLocks(counter)).toBe(2);

    const signalledAt = performance.now();
    service.child.kill('SIGTERM');
    await sleep(300);
    // No new connections.
    const refused = await call(new Agent(), origin, 'GET', '/healthz', {});
    expect(refused.status).toBe('error');
    await sleep(700);
    await rowLock.query('COMMIT');

    const written = await write;
    expect(written.status).toBe(200);
    expect(written.headers.connection).toBe('close');
    expect(written.at - signalledAt).toBeLessThan(GRACE_MS);

    const blocked = await read;
    expect(blocked.status).toBe(503);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    expect(blocked.headers.connection).toBe('close');

    const code = await service.exited;
    const exitMs = performance.now() - signalledAt;
    expect(code, service.output().slice(-3000)).toBe(0);
    expect(exitMs).toBeLessThan(GRACE_MS + CLOSE_BOUND_MS);
    expect(idleClosedAt - signalledAt).toBeLessThan(1000);
    // The pool closed with its query cancelled: nothing of the service is left on the server,
    // although the table lock it waited on is still held.
    expect(await serviceBackends(counter)).toBe(0);
    await tableLock.query('COMMIT');
    console.info(`SIGTERM: write answered after ${(written.at - signalledAt).toFixed(0)} ms, exit after ${exitMs.toFixed(0)} ms`);
  }, 60_000);
});
