import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Applies prisma/migrations in order and records them in Prisma's own `_prisma_migrations`
 * table, so this runner and `prisma migrate deploy` agree on what has been applied.
 */

export interface SqlRunner {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The project's prisma/migrations folder, found from this module whether it runs from src/ or dist/. */
function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(dir, 'prisma', 'migrations');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('prisma/migrations was not found above the service code');
}

export function listMigrations(dir = migrationsDir()): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

async function appliedNames(db: SqlRunner): Promise<Set<string> | null> {
  const exists = await db.query<{ present: boolean }>(`SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS present`);
  if (!exists[0]?.present) return null;
  const rows = await db.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  return new Set(rows.map((r) => r.migration_name));
}

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(db: SqlRunner, migrations = listMigrations()): Promise<string[]> {
  const applied = (await appliedNames(db)) ?? new Set<string>();
  return migrations.filter((m) => !applied.has(m.name)).map((m) => m.name);
}

/**
 * Serializes runners: several deploy jobs may migrate at once. A transaction-scoped advisory lock
 * rather than a session one, so the runner is safe through a transaction-pooling PgBouncer (where a
 * session lock would stay with whichever server connection took it, not with this runner).
 */
const LOCK = 'SELECT pg_advisory_xact_lock(727274)';

/**
 * Applies every pending migration, each in its own transaction that first takes the lock and then
 * checks again that no other runner applied it meanwhile. Returns the names this runner applied.
 */
export async function applyMigrations(db: SqlRunner, migrations = listMigrations()): Promise<string[]> {
  await inTransaction(db, async () => {
    await db.query(LOCK);
    await db.exec(CREATE_TABLE);
  });
  const pending = new Set(await pendingMigrations(db, migrations));
  const done: string[] = [];
  for (const m of migrations) {
    if (!pending.has(m.name)) continue;
    const applied = await inTransaction(db, async () => {
      await db.query(LOCK);
      if ((await appliedNames(db))?.has(m.name)) return false;
      try {
        await db.exec(m.sql);
      } catch (error) {
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`);
      }
      await db.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES ($1, $2, now(), $3, now(), 1)`,
        [randomUUID(), m.checksum, m.name],
      );
      return true;
    });
    if (applied) done.push(m.name);
  }
  return done;
}

async function inTransaction<T>(db: SqlRunner, fn: () => Promise<T>): Promise<T> {
  await db.exec('BEGIN');
  try {
    const result = await fn();
    await db.exec('COMMIT');
    return result;
  } catch (error) {
    await db.exec('ROLLBACK');
    throw error;
  }
}
