import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createWorkflow } from '../helpers/workflows.js';

/** Personal API keys: created once with their secret, accepted as Bearer within their scope. */
describe('personal API keys', () => {
  let database: TestDatabase;
  let t: TestApp;
  let second: TestApp;
  let owner: string;
  let depA: string;
  let depB: string;

  async function createKey(token: string, body: Record<string, unknown>) {
    const res = await t.call('POST', '/v1/api-keys', { token, body });
    if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${res.text}`);
    return res.body.data as { keyId: string; secret: string; prefix: string };
  }

  const ping = (app: TestApp, deploymentId: string, token: string | null) =>
    app.call('POST', `/v1/mcp/${deploymentId}`, { token, body: { jsonrpc: '2.0', method: 'ping', id: 1 } });

  // Starts its own services: a second instance (and, for the logs, a third) runs on the same
  // database, and a key revoked on one instance must be refused on the other.
  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp({ database });
    second = await startTestApp({ database });
    owner = await t.token('keys@example.com', { plan: 'pro' });
    const w = await createWorkflow(t, owner, { name: 'Keyed' });
    for (const name of ['A', 'B']) {
      const res = await t.call('POST', '/v1/deployments', { token: owner, body: { name, workflowIds: [w.workflowId] } });
      if (name === 'A') depA = res.body.data.deploymentId;
      else depB = res.body.data.deploymentId;
    }
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
    await database?.drop();
  });

  it('shows the secret once, with a recognisable prefix, and lists keys without it', async () => {
    const res = await t.call('POST', '/v1/api-keys', {
      token: owner,
      body: { name: 'Laptop', scope: 'api', expiresAt: '2099-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(201);
    const key = res.body.data;
    expect(key.secret).toMatch(/^wfk_[0-9A-Za-z]{40}$/);
    expect(key).toMatchObject({
      name: 'Laptop',
      scope: 'api',
      deploymentIds: [],
      prefix: key.secret.slice(0, 12),
      lastUsedAt: null,
      expiresAt: '2099-01-01T00:00:00.000Z',
    });
    const list = await t.call('GET', '/v1/api-keys', { token: owner });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((k: any) => k.keyId === key.keyId);
    expect(Object.keys(listed).sort()).toEqual([
      'createdAt',
      'deploymentIds',
      'expiresAt',
      'keyId',
      'lastUsedAt',
      'name',
      'prefix',
      'scope',
    ]);
    expect(list.text).not.toContain(key.secret);
    const stored = await database.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.keyId } });
    expect(JSON.stringify(stored)).not.toContain(key.secret);
  });

  it('opens REST, GraphQL and tool endpoints with an api key, and records its last use', async () => {
    const key = await createKey(owner, { name: 'Everything', scope: 'api' });
    const me = await t.call('GET', '/v1/users/me', { token: key.secret });
    expect(me.status).toBe(200);
    expect(me.body.data.email).toBe('keys@example.com');
    const gql = await t.graphql('{ me { email } }', {}, key.secret);
    expect(gql.body.data.me.email).toBe('keys@example.com');
    expect((await ping(t, depA, key.secret)).status).toBe(200);
    const listed = (await t.call('GET', '/v1/api-keys', { token: owner })).body.data.find((k: any) => k.keyId === key.keyId);
    expect(listed.lastUsedAt).not.toBeNull();
  });

  it('keeps an mcp key to tool endpoints: 403 on REST and GraphQL', async () => {
    const key = await createKey(owner, { name: 'IDE' });
    expect((await ping(t, depA, key.secret)).status).toBe(200);
    const rest = await t.call('GET', '/v1/workflows', { token: key.secret });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({ code: 'FORBIDDEN', details: { scope: 'mcp' } });
    const gql = await t.graphql('{ me { email } }', {}, key.secret);
    expect(gql.status).toBe(403);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('keeps a key limited to deployment A off deployment B', async () => {
    const key = await createKey(owner, { name: 'Only A', deploymentIds: [depA] });
    expect((await ping(t, depA, key.secret)).status).toBe(200);
    const onB = await ping(t, depB, key.secret);
    expect(onB.status).toBe(403);
    expect(JSON.stringify(onB.body)).toMatch(/limited to the tool endpoints of/);
  });

  it('refuses expired, revoked (on another instance too) and malformed keys with 401', async () => {
    const expiring = await createKey(owner, { name: 'Soon', scope: 'api' });
    await database.db.prisma.apiKey.update({ where: { id: expiring.keyId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await t.call('GET', '/v1/users/me', { token: expiring.secret });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired at/);

    const revoked = await createKey(owner, { name: 'Lost', scope: 'api' });
    expect((await second.call('GET', '/v1/users/me', { token: revoked.secret })).status).toBe(200);
    const del = await t.call('DELETE', `/v1/api-keys/${revoked.keyId}`, { token: owner });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ keyId: revoked.keyId, deleted: true });
    for (const app of [t, second]) {
      const res = await app.call('GET', '/v1/users/me', { token: revoked.secret });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
      expect((await ping(app, depA, revoked.secret)).status).toBe(401);
    }
    const again = await t.call('DELETE', `/v1/api-keys/${revoked.keyId}`, { token: owner });
    expect(again.status).toBe(404);

    for (const malformed of ['wfk_short', `wfk_${'a'.repeat(39)}!`, `wfk_${'a'.repeat(41)}`]) {
      const res = await t.call('GET', '/v1/users/me', { token: malformed });
      expect(res.status).toBe(401);
    }
  });

  it('does not count expired keys toward the plan limit of keys, in the refusal nor in the usage', async () => {
    const user = await t.token('keys-cap@example.com', { plan: 'free' });
    const keys = [];
    for (let i = 1; i <= 5; i += 1) keys.push(await createKey(user, { name: `Key ${i}`, scope: 'api' }));
    const full = await t.call('POST', '/v1/api-keys', { token: user, body: { name: 'Sixth' } });
    expect(full.status).toBe(402);
    expect(full.body.error.details).toMatchObject({ quota: 'apiKeys', limit: 5, used: 5 });

    await database.db.prisma.apiKey.update({ where: { id: keys[0]!.keyId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const usage = await t.graphql('{ me { usage { apiKeys { used limit remaining } } } }', {}, user);
    expect(usage.body.data.me.usage.apiKeys).toEqual({ used: 4, limit: 5, remaining: 1 });
    // Listed still (marked expired on the Account page), but no longer counted: a new key fits.
    const listed = await t.call('GET', '/v1/api-keys', { token: user });
    expect(listed.body.data.map((k: { keyId: string }) => k.keyId)).toContain(keys[0]!.keyId);
    expect((await t.call('POST', '/v1/api-keys', { token: user, body: { name: 'Sixth' } })).status).toBe(201);
    expect((await t.call('POST', '/v1/api-keys', { token: user, body: { name: 'Seventh' } })).status).toBe(402);

    // A key that expires later still counts.
    await database.db.prisma.apiKey.update({ where: { id: keys[1]!.keyId }, data: { expiresAt: new Date(Date.now() + 3_600_000) } });
    expect((await t.call('POST', '/v1/api-keys', { token: user, body: { name: 'Seventh' } })).status).toBe(402);
  });

  it("does not let a user see or revoke another user's keys", async () => {
    const key = await createKey(owner, { name: 'Mine', scope: 'api' });
    const other = await t.token('other-keys@example.com');
    const list = await t.call('GET', '/v1/api-keys', { token: other });
    expect(list.body.data).toEqual([]);
    expect((await t.call('DELETE', `/v1/api-keys/${key.keyId}`, { token: other })).status).toBe(404);
    const created = await t.call('POST', '/v1/api-keys', { token: other, body: { name: 'Theirs', deploymentIds: [depA] } });
    expect(created.status).toBe(400);
    expect(created.body.error.details.fields).toEqual([{ field: 'deploymentIds[0]', message: `deployment '${depA}' is not one of yours` }]);
  });

  it('answers bad input with 400 naming each field', async () => {
    const res = await t.call('POST', '/v1/api-keys', {
      token: owner,
      body: { name: ' ', scope: 'root', expiresAt: '2001-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.map((f: any) => f.field)).toEqual(['name', 'scope', 'expiresAt']);
    const notADate = await t.call('POST', '/v1/api-keys', { token: owner, body: { name: 'x', expiresAt: 'tomorrow' } });
    expect(notADate.body.error.details.fields[0].field).toBe('expiresAt');
    const missing = await t.call('POST', '/v1/api-keys', { token: owner, body: {} });
    expect(missing.status).toBe(400);
  });

  it('caps the keys of a user by plan (free: 5) with 402', async () => {
    const free = await t.token('few-keys@example.com', { plan: 'free' });
    for (let i = 0; i < 5; i += 1) await createKey(free, { name: `k${i}` });
    const res = await t.call('POST', '/v1/api-keys', { token: free, body: { name: 'one too many' } });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { quota: 'apiKeys', limit: 5, used: 5, plan: 'free' } });
  });

  it('counts requests made with a key as the user for rate limits', async () => {
    const key = await createKey(owner, { name: 'Counted', scope: 'api' });
    const before = await t.call('GET', '/v1/users/me', { token: owner });
    const withKey = await t.call('GET', '/v1/users/me', { token: key.secret });
    expect(Number(withKey.headers.get('x-ratelimit-remaining'))).toBe(Number(before.headers.get('x-ratelimit-remaining')) - 1);
  });

  it("deletes the keys with the account: a deleted account's key opens nothing", async () => {
    const leaving = await t.token('leaving-keys@example.com');
    const key = await createKey(leaving, { name: 'Old', scope: 'api' });
    expect((await t.call('DELETE', '/v1/users/me', { token: leaving })).status).toBe(200);
    expect(await database.db.prisma.apiKey.count({ where: { id: key.keyId } })).toBe(0);
    expect((await t.call('GET', '/v1/users/me', { token: key.secret })).status).toBe(401);
  });

  it('never writes a key to the logs', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await createApp(t.config, { database: database.db, logger: createLogger('trace', sink) });
    try {
      const key = await createKey(owner, { name: 'Logged', scope: 'api' });
      await logged.fetch(new Request('http://127.0.0.1/v1/users/me', { headers: { authorization: `Bearer ${key.secret}` } }));
      await logged.fetch(new Request('http://127.0.0.1/v1/users/me', { headers: { authorization: `Bearer ${key.secret.slice(0, -1)}X` } }));
      await logged.fetch(new Request('http://127.0.0.1/v1/workflows', { headers: { authorization: `Bearer ${key.secret}` } }));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain(key.secret.slice(4));
    } finally {
      await logged.close();
    }
  });
});
