#!/usr/bin/env node
// Runs the Prisma CLI offline. Prisma 6.19 tries to download native engines when it
// starts, even in the mode this project uses (queries through a driver adapter, migrations
// through the JavaScript schema engine), where those engines are never executed. Pointing the
// engine variables at stand-in files lets every command finish without network access.
//
//   node scripts/prisma.mjs generate
//   node scripts/prisma.mjs migrate deploy            (DATABASE_URL=postgres://…)
//   node scripts/prisma.mjs migration-new <name>      (writes prisma/migrations/<stamp>_<name>/)
//   node scripts/prisma.mjs check                     (exit 1 when schema and migrations disagree)
//   node scripts/prisma.mjs <any prisma arguments>
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stubDir = join(root, 'node_modules', '.prisma-offline');
mkdirSync(stubDir, { recursive: true });
const schemaEngine = join(stubDir, 'schema-engine');
const queryEngine = join(stubDir, 'libquery_engine.so.node');
for (const file of [schemaEngine, queryEngine]) if (!existsSync(file)) writeFileSync(file, '');

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: schemaEngine,
  PRISMA_QUERY_ENGINE_LIBRARY: queryEngine,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
  // Generators such as prisma-pothos-types are found on the project's own bin path.
  PATH: `${join(root, 'node_modules', '.bin')}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}`,
};
const cli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
const migrationsDir = join(root, 'prisma', 'migrations');

function prisma(args, options = {}) {
  const result = spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env,
    stdio: options.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return result;
}

function diffFromMigrations(extra) {
  const hasMigrations = existsSync(migrationsDir) && readdirSync(migrationsDir).some((d) => /^\d/.test(d));
  // The diff runs against a throw-away PGlite shadow database, never against DATABASE_URL.
  delete env.DATABASE_URL;
  const from = hasMigrations ? ['--from-migrations', migrationsDir] : ['--from-empty'];
  return prisma(['migrate', 'diff', ...from, '--to-schema-datamodel', 'prisma/schema.prisma', ...extra], { capture: true });
}

const [command, ...rest] = process.argv.slice(2);

if (command === 'migration-new') {
  const name = (rest[0] ?? '').trim();
  if (!/^[a-z0-9_]+$/.test(name)) {
    console.error('usage: npm run db:migration:new -- <name>   (lowercase letters, digits and _)');
    process.exit(2);
  }
  const result = diffFromMigrations(['--script']);
  if (result.status !== 0) process.exit(result.status ?? 1);
  const sql = result.stdout;
  if (!sql.trim() || /^-- This is an empty migration\.\s*$/.test(sql.trim())) {
    console.log('schema.prisma and the migrations agree: nothing to create.');
    process.exit(0);
  }
  const lock = join(migrationsDir, 'migration_lock.toml');
  if (!existsSync(lock))
    writeFileSync(lock, '# Written by scripts/prisma.mjs; prisma migrate reads the provider from it.\nprovider = "postgresql"\n');
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  console.log(`created ${join('prisma', 'migrations', `${stamp}_${name}`, 'migration.sql')}`);
} else if (command === 'check') {
  const result = diffFromMigrations(['--exit-code']);
  if (result.status === 0) {
    console.log('schema.prisma and the migrations agree.');
  } else {
    process.stdout.write(result.stdout ?? '');
    console.error('schema.prisma and prisma/migrations disagree: run npm run db:migration:new -- <name>');
    process.exit(1);
  }
} else if (command) {
  const result = prisma([command, ...rest]);
  process.exit(result.status ?? 1);
} else {
  console.error('usage: node scripts/prisma.mjs <generate | migration-new NAME | check | prisma arguments…>');
  process.exit(2);
}
