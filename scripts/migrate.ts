/**
 * npm run db:migrate — applies pending migrations to the PostgreSQL database in DATABASE_URL.
 * Uses the same runner as the embedded database, which records migrations in Prisma's
 * `_prisma_migrations` table. Several deploy jobs may run it at once (the runner serializes them
 * with a transaction-scoped advisory lock), directly against PostgreSQL or through PgBouncer.
 */
import pg from 'pg';
import { applyMigrations } from '../src/db/migrations.js';
import { pgRunner } from '../src/db/index.js';

const url = process.env.DATABASE_URL;
if (!url || !/^postgres(ql)?:/.test(url)) {
  console.error('DATABASE_URL must point at PostgreSQL (postgres://…). The embedded database migrates itself at start.');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
try {
  await client.connect();
  const applied = await applyMigrations(pgRunner(client));
  console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'the database is up to date');
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
