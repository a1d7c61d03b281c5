/**
 * What sending the service's statements unnamed costs (DATABASE_URL `?pgbouncer=true`, for a
 * PgBouncer without prepared-statement tracking) against named prepared statements:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<a migrated database> nice -n 19 npx tsx bench/statements.ts [--reads 10000] [--rounds 2]
 *
 * Reads two of the service's hottest statements through the service's own database layer, at
 * concurrency 10 over a pool of 10, named then unnamed, in alternating rounds, and prints reads a
 * second and microseconds a read. Point it at PostgreSQL itself to measure the statements alone,
 * or at a PgBouncer (with ?pgbouncer=true only) to include the pooler.
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { openDatabase, poolerMode } from '../src/db/index.js';
import { USER_WITH_COUNTS } from '../src/users/sql.js';
import { WORKFLOW_BY_ID } from '../src/workflows/sql.js';

const { values } = parseArgs({ options: { reads: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '2' } } });
const base = process.env.DATABASE_URL;
if (!base || !/^postgres(ql)?:/.test(base)) throw new Error('DATABASE_URL must name a migrated PostgreSQL database');
const reads = Number(values.reads);
const plain = poolerMode(base).url;
const modes = poolerMode(base).namedStatements
  ? ([
      ['named', plain],
      ['unnamed', `${plain}${plain.includes('?') ? '&' : '?'}pgbouncer=true`],
    ] as const)
  : ([['unnamed', base]] as const);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (let round = 1; round <= Number(values.rounds); round += 1) {
  for (const [label, url] of modes) {
    const db = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 10 });
    for (const statement of [WORKFLOW_BY_ID, USER_WITH_COUNTS]) {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next++ < reads) await db.read(statement, ['unknown_id']);
        }),
      );
      const ms = performance.now() - started;
      console.log(
        `round ${round} ${label.padEnd(7)} ${statement.name.padEnd(16)} ${(reads / (ms / 1000)).toFixed(0)} reads/s, ${((ms * 1000) / reads).toFixed(0)} µs a read`,
      );
    }
    await db.close();
  }
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
