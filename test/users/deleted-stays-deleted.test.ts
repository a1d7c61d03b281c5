import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { aSecondLater } from '../helpers/clock.js';
import { createWorkflow } from '../helpers/workflows.js';

/**
 * An account deleted stays deleted, on every instance: a token issued before the deletion opens
 * nothing and re-creates nothing; a new sign-in afterwards starts a new, empty account.
 */
describe('a deleted account stays deleted (two instances over one database)', () => {
  let a: TestApp;
  let b: TestApp;

  // Its own lifecycle rather than the service fixture: the subject is two instances over one
  // database, and the fixture gives one service per file.
  beforeAll(async () => {
    a = await startTestApp();
    // The second instance shares the database and the development issuer's keys, as a second
    // process behind the same load balancer would.
    b = await startTestApp({ database: a.database, env: { DATA_DIR: a.dataDir } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const usersWithEmail = (email: string) => a.database.db.prisma.user.count({ where: { email } });

  it('refuses the old token on both instances, then lets a new sign-in start afresh', async () => {
    const email = 'deleted-for-good@example.com';
    const old = await signDevToken(a.dataDir, { email });
    // Both instances know the account (each has its viewer cached).
    const before = await a.call('GET', '/v1/users/me', { token: old });
    expect(before.status).toBe(200);
    const userId = before.body.data.userId;
    expect((await b.call('GET', '/v1/users/me', { token: old })).body.data.userId).toBe(userId);
    await createWorkflow(a, old, { name: 'Soon gone' });

    const deleted = await a.call('DELETE', '/v1/users/me', { token: old });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ userId, deleted: true });

    for (const [name, instance] of [
      ['deleting instance', a],
      ['other instance', b],
    ] as const) {
      const me = await instance.call('GET', '/v1/users/me', { token: old });
      expect(me.status, name).toBe(401);
      expect(me.body.error.code, name).toBe('UNAUTHORIZED');
      const write = await instance.call('POST', '/v1/workflows', {
        token: old,
        body: {
          name: 'Resurrected?',
          manifest: { manifest_version: '1.0', name: 'x', intent: 'y', steps: [{ id: 'a', name: 'A', action: 'code_agent' }] },
        },
      });
      expect(write.status, name).toBe(401);
      const gql = await instance.graphql('{ me { userId } }', {}, old);
      expect(gql.status === 401 || gql.body.errors?.[0]?.extensions?.code === 'UNAUTHORIZED', name).toBe(true);
      expect(gql.body.data?.me ?? null, name).toBeNull();
    }
    // Nothing re-created the account.
    expect(await usersWithEmail(email)).toBe(0);
    const refused = await a.call('GET', '/v1/users/me', { token: old });
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'account_deleted' } });
    expect(refused.body.error.message).toMatch(/deleted; sign in again/);

    // A new sign-in (a token issued after the deletion; iat counts whole seconds).
    const fresh = await aSecondLater(() => signDevToken(a.dataDir, { email, expiresInSeconds: 1800 }));
    const onB = await b.call('GET', '/v1/users/me', { token: fresh });
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.data.userId).not.toBe(userId);
    expect(onB.body.data).toMatchObject({ email, workflowCount: 0, deploymentCount: 0, subscriptionCount: 0 });
    expect((await a.call('GET', '/v1/users/me', { token: fresh })).body.data.userId).toBe(onB.body.data.userId);
    expect(await usersWithEmail(email)).toBe(1);

    // The old token does not open the new account either.
    for (const instance of [a, b]) expect((await instance.call('GET', '/v1/users/me', { token: old })).status).toBe(401);
  });
});
