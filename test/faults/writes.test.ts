import { randomUUID } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { OwnPostgres } from '../helpers/own-postgres.js';
import { sampleManifest } from '../helpers/workflows.js';
import { adminSession, faultsUnavailable, migratedCluster } from './harness.js';

/**
 * Writes under faults, on a private cluster: a stale If-Match never overwrites, concurrent repeats
 * of an Idempotency-Key create one resource, and a create whose commit acknowledgement is lost (the
 * database committed; the service saw its connection die) is not made twice by the client's retry.
 *
 * The lost acknowledgement is made by a TCP relay between the service and PostgreSQL: armed, it
 * lets through the COMMIT of the first transaction that inserted a workflow, then cuts that
 * connection before the server's answer reaches the service.
 */

interface CommitCutter {
  url: string;
  /** Cuts the next connection that commits an insert into `table` after its COMMIT has reached the server. */
  arm(table: string): void;
  /** True once a commit was cut. */
  cut(): boolean;
  close(): Promise<void>;
}

async function commitCutter(target: OwnPostgres): Promise<CommitCutter> {
  const upstream = new URL(target.url);
  let armed: RegExp | null = null;
  let cutDone = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const backend = createConnection({ host: upstream.hostname, port: Number(upstream.port) });
    sockets.add(client).add(backend);
    let inserted = false;
    let commitSent = false;
    const closeBoth = () => {
      client.destroy();
      backend.destroy();
    };
    client.on('error', closeBoth).on('close', closeBoth);
    backend.on('error', closeBoth).on('close', closeBoth);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (armed?.test(text)) inserted = true;
      if (armed && inserted && /COMMIT/.test(text)) {
        armed = null;
        commitSent = true;
      }
      backend.write(chunk);
    });
    backend.on('data', (chunk: Buffer) => {
      if (commitSent) {
        // The server has committed and is answering: the answer never arrives.
        cutDone = true;
        closeBoth();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target.url);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    arm: (table) => {
      armed = new RegExp(`INSERT INTO "?(?:public"?\\."?)?${table}"?\\s`, 'i');
    },
    cut: () => cutDone,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(faultsUnavailable !== null)(`writes under faults (${faultsUnavailable ?? 'own PostgreSQL'})`, () => {
  let server: OwnPostgres;
  let relay: CommitCutter;
  let db: Database;
  let t: TestApp;

  // Not the serviceTest fixture: the service runs on a PostgreSQL server of its own, reached through a
  // relay that cuts the answer to a commit.
  beforeAll(async () => {
    server = await migratedCluster();
    relay = await commitCutter(server);
    db = await openDatabase({ databaseUrl: relay.url, dataDir: '', poolSize: 4 });
    t = await startTestApp({ database: { db, url: relay.url, drop: () => db.close() } });
  }, 90_000);

  afterAll(async () => {
    await t?.close();
    await db?.close();
    await relay?.close();
    await server?.destroy();
  }, 60_000);

  async function workflowsNamed(name: string): Promise<number> {
    const admin = await adminSession(server);
    try {
      const { rows } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM workflows WHERE name = $1', [name]);
      return Number(rows[0]!.n);
    } finally {
      await admin.end();
    }
  }

  it('does not create twice when a commit is acknowledged to the database but lost to the service', async () => {
    const token = await t.token('lost-ack@example.com');
    const key = randomUUID();
    const body = { name: 'Committed in the dark', manifest: sampleManifest() };
    relay.arm('workflows');
    const first = await t.call('POST', '/v1/workflows', { token, body, headers: { 'idempotency-key': key } });
    expect(relay.cut()).toBe(true);
    // The service cannot know the outcome: it says so as a retryable unavailability.
    expect([first.status, first.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await workflowsNamed(body.name)).toBe(1);

    const retry = await t.call('POST', '/v1/workflows', { token, body, headers: { 'idempotency-key': key } });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.name).toBe(body.name);
    expect(retry.headers.get('location')).toBe(`/v1/workflows/${retry.body.data.workflowId}`);
    expect(await workflowsNamed(body.name)).toBe(1);

    // The pool is whole again, and a new key creates as usual.
    const next = await t.call('POST', '/v1/workflows', { token, body, headers: { 'idempotency-key': randomUUID() } });
    expect(next.status).toBe(201);
    expect(await workflowsNamed(body.name)).toBe(2);
    const stats = db.poolStats();
    expect(stats.total - stats.idle).toBe(0);
  }, 30_000);

  it('names what was created when the lost answer cannot be made again (an API key’s secret is shown once)', async () => {
    const token = await t.token('lost-key@example.com');
    const key = randomUUID();
    const body = { name: 'Key in the dark', scope: 'mcp' };
    relay.arm('api_keys');
    const first = await t.call('POST', '/v1/api-keys', { token, body, headers: { 'idempotency-key': key } });
    expect(relay.cut()).toBe(true);
    expect(first.status).toBe(503);
    const retry = await t.call('POST', '/v1/api-keys', { token, body, headers: { 'idempotency-key': key } });
    expect([retry.status, retry.body.error.code, retry.body.error.details.reason]).toEqual([
      409,
      'CONFLICT',
      'idempotency_key_answer_lost',
    ]);
    const listed = await t.call('GET', '/v1/api-keys', { token });
    const named = listed.body.data.filter((k: { name: string }) => k.name === body.name);
    expect(named).toHaveLength(1);
    expect(retry.body.error.details.location).toBe(`/v1/api-keys/${named[0].keyId}`);
    expect(JSON.stringify(retry.body)).not.toMatch(/wfk_[0-9A-Za-z]{20}/);
  }, 30_000);

  it('creates once for concurrent repeats of one Idempotency-Key, and answers every later repeat with the first answer', async () => {
    const token = await t.token('repeats@example.com');
    const key = randomUUID();
    const body = { name: 'Sent six times', manifest: sampleManifest() };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.call('POST', '/v1/workflows', { token, body, headers: { 'idempotency-key': key } })),
    );
    const created = answers.filter((a) => a.status === 201);
    // The others ran while the first held the key: 409 with Retry-After, nothing created.
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect([a.status, a.body.error.details.reason]).toEqual([409, 'idempotency_key_in_flight']);
      expect(a.headers.get('retry-after')).toBe('1');
    }
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((a) => a.body.data.workflowId));
    expect(ids.size).toBe(1);
    const later = await t.call('POST', '/v1/workflows', { token, body, headers: { 'idempotency-key': key } });
    expect([later.status, later.body.data.workflowId, later.headers.get('idempotent-replayed')]).toEqual([201, [...ids][0], 'true']);
    expect(await workflowsNamed(body.name)).toBe(1);
  }, 30_000);

  it('refuses a stale If-Match with 412 and keeps the first writer’s change', async () => {
    const token = await t.token('if-match@example.com');
    const created = await t.call('POST', '/v1/workflows', { token, body: { name: 'Edited twice', manifest: sampleManifest() } });
    expect(created.status).toBe(201);
    const id = created.body.data.workflowId as string;
    const read = await t.call('GET', `/v1/workflows/${id}`, { token });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    // Two clients read the same revision and both save an edit.
    const put = (description: string) =>
      t.call('PUT', `/v1/workflows/${id}`, { token, body: { description }, headers: { 'if-match': etag } });
    const [a, b] = await Promise.all([put('First writer'), put('Second writer')]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 412]);
    const refused = a.status === 412 ? a : b;
    const won = a.status === 200 ? a : b;
    expect(refused.body.error.code).toBe('PRECONDITION_FAILED');
    const now = await t.call('GET', `/v1/workflows/${id}`, { token });
    expect(now.body.data.description).toBe(won.body.data.description);
    expect(now.headers.get('etag')).not.toBe(etag);
  }, 30_000);
});
