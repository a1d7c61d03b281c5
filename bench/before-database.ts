/**
 * The database of the before build (`--before-dir`). Migrations mostly add tables and nullable
 * columns, which an earlier build never reads, so it shares the seeded database. A migration
 * that drops or moves what an earlier build reads cannot be shared: the before build then gets a
 * copy of the seeded database (same rows, same ids, the same tokens valid) on which the SQL of
 * GIVEN_BACK restores what that migration took away.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT } from './harness.js';

/** For each migration that drops or moves something, the SQL that gives it back on the copy. */
const GIVEN_BACK: Record<string, string> = {
  // Identities moved from users (issuer, subject) to sign_in_identities.
  '20261129013000_sign_in_identities': `
    ALTER TABLE users ADD COLUMN issuer text, ADD COLUMN subject text;
    UPDATE users u SET issuer = i.issuer, subject = i.subject FROM sign_in_identities i WHERE i.user_id = u.id;
    CREATE UNIQUE INDEX users_issuer_subject_key ON users (issuer, subject);`,
};

/** Words of a migration that take away what an earlier build may read. */
const TAKES_AWAY = /\bDROP\s+(COLUMN|TABLE|TYPE)\b|\bRENAME\b|\bSET\s+NOT\s+NULL\b/i;

function migrationNames(checkout: string): string[] {
  const dir = join(checkout, 'prisma/migrations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name);
}

/** The SQL that brings this checkout's schema back to the before build's, or [] when it can share it. */
function stepsBack(beforeDir: string): string[] {
  const known = new Set(migrationNames(beforeDir));
  const steps: string[] = [];
  for (const name of migrationNames(ROOT).sort().reverse()) {
    if (known.has(name)) continue;
    const back = GIVEN_BACK[name];
    if (back) steps.push(back);
    else if (TAKES_AWAY.test(readFileSync(join(ROOT, 'prisma/migrations', name, 'migration.sql'), 'utf8')))
      throw new Error(
        `the before build predates migration ${name}, which takes away what it may read: add the SQL that gives it back to GIVEN_BACK in bench/before-database.ts`,
      );
  }
  return steps;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The URL the before build uses: the seeded database's own, or a copy brought back to its schema
 * (`<name>_before`, dropped by the returned `drop`). Call it while nothing is connected to the seeded
 * database, since PostgreSQL copies only a database nobody uses.
 */
export async function prepareBeforeDatabase(
  adminUrl: string,
  seeded: { name: string; url: string },
  beforeDir: string,
  log: (line: string) => void,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const steps = stepsBack(beforeDir);
  if (steps.length === 0) return { url: seeded.url, drop: async () => {} };
  const name = `${seeded.name}_before`;
  const drop = () => withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {});
  await drop();
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${seeded.name}`));
  const url = new URL(seeded.url);
  url.pathname = `/${name}`;
  await withClient(url.toString(), async (c) => {
    await c.query('BEGIN');
    for (const sql of steps) await c.query(sql);
    await c.query('COMMIT');
    await c.query('VACUUM ANALYZE');
  });
  log(`the before build reads a copy of the data, ${name}, brought back to its schema (${steps.length} step(s))`);
  return { url: url.toString(), drop };
}
