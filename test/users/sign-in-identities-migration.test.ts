import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { DEV_ISSUER, signDevToken } from '../../src/auth/dev-issuer.js';
import { openDatabase } from '../../src/db/index.js';
import { applyMigrations, listMigrations } from '../../src/db/migrations.js';
import { identityHash } from '../../src/users/identity-hash.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/**
 * The migration to several ways in: an account made before it (its identity on the users row)
 * keeps its way in, and an account deleted before it stays deleted.
 */
describe('accounts made before sign-in identities', () => {
  // Its own lifecycle rather than the service fixture: the database is prepared with the migrations
  // before this one, and the service starts on it to apply the rest.
  const dir = mkdtempSync(join(tmpdir(), 'wf-identities-'));
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keep their way in; a deleted account stays deleted', async () => {
    const all = listMigrations();
    const at = all.findIndex((m) => m.name.endsWith('_sign_in_identities'));
    expect(at).toBeGreaterThan(0);
    // The database as it was just before the migration, with one account and one deleted account.
    const lite = new PGlite(join(dir, 'pglite'));
    await lite.waitReady;
    const runner = {
      query: async <T>(sql: string, params?: unknown[]) => (await lite.query<T>(sql, params as never[])).rows,
      exec: async (sql: string) => void (await lite.exec(sql)),
    };
    await applyMigrations(runner, all.slice(0, at));
    await lite.query(
      `INSERT INTO users (id, issuer, subject, email, created_at, updated_at) VALUES ('usr_before', $1, 'dev|old@example.com', 'Old@Example.com', now(), now())`,
      [DEV_ISSUER],
    );
    // Deleted a minute from now, so a token signed now was issued before the deletion.
    const deletedAt = new Date(Date.now() + 60_000);
    await lite.query(`INSERT INTO deleted_accounts (identity_hash, deleted_at) VALUES ($1, $2)`, [
      identityHash(DEV_ISSUER, 'dev|gone@example.com'),
      deletedAt,
    ]);
    await lite.close();

    // The service starts on it and applies the rest.
    const db = await openDatabase({ databaseUrl: null, dataDir: dir });
    t = await startTestApp({ database: { db, url: null, drop: () => db.close() }, env: { DATA_DIR: dir } });
    const identities = await db.prisma.signInIdentity.findMany({ where: { userId: 'usr_before' } });
    expect(identities).toMatchObject([
      { method: 'oidc', issuer: DEV_ISSUER, subject: 'dev|old@example.com', email: 'old@example.com', emailVerified: false },
    ]);

    // The old account's token opens the same account.
    const token = await signDevToken(dir, { email: 'Old@Example.com', sub: 'dev|old@example.com' });
    const me = await t.call('GET', '/v1/users/me', { token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.data.userId).toBe('usr_before');

    // A token of the deleted account issued before its deletion opens nothing and makes nothing.
    const old = await signDevToken(dir, { email: 'gone@example.com' });
    const refused = await t.call('GET', '/v1/users/me', { token: old });
    expect(refused.status).toBe(401);
    expect(refused.body.error.details.reason).toBe('account_deleted');
    expect(await db.prisma.user.count()).toBe(1);
  });
});
