import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '../../src/db/migrations.js';
import { pgRunner } from '../../src/db/index.js';

/**
 * On PostgreSQL (DATABASE_URL set) the migrations are applied once to a template database;
 * every test file then gets its own copy of it. On PGlite every test file migrates its own
 * in-memory database.
 *
 * Through a connection pooler (DATABASE_URL naming PgBouncer, e.g. `…:6432/test?pgbouncer=true`),
 * TEST_DATABASE_ADMIN_URL names the PostgreSQL server itself: databases are created, copied from the
 * template and dropped there (a pooler keeps server connections open to the template, which
 * CREATE DATABASE … TEMPLATE refuses), while the service under test connects through DATABASE_URL.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serviceUrl = process.env.DATABASE_URL;
  const url = serviceUrl ? process.env.TEST_DATABASE_ADMIN_URL || serviceUrl : undefined;
  // Every run names its own databases, so runs sharing one server (CI, several developers)
  // never drop each other's template or copies.
  const runPrefix = `wf_test_${process.pid}_${Date.now().toString(36)}`;
  const TEMPLATE_DB = `${runPrefix}_template`;
  project.provide('databaseUrl', serviceUrl ?? '');
  project.provide('adminDatabaseUrl', url ?? '');
  project.provide('testDatabasePrefix', runPrefix);
  if (!url) return async () => {};
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  const client = new pg.Client({ connectionString: templateUrl.toString() });
  await client.connect();
  await applyMigrations(pgRunner(client));
  await client.end();
  return async () => {
    const cleanup = new pg.Client({ connectionString: url });
    await cleanup.connect();
    const { rows } = await cleanup.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [
      runPrefix,
    ]);
    for (const row of rows) await cleanup.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`).catch(() => {});
    await cleanup.end();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** What the service connects to (DATABASE_URL): PostgreSQL, or a pooler in front of it. */
    databaseUrl: string;
    /** The PostgreSQL server itself, where databases are created and dropped. */
    adminDatabaseUrl: string;
    /** Name prefix of this run's databases; its template is `<prefix>_template`. */
    testDatabasePrefix: string;
  }
}
