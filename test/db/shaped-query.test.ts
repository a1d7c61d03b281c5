import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, poolerMode, type Database } from '../../src/db/index.js';
import { poolTypes } from '../../src/db/type-parsers.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/database.js';

/**
 * The service's own statements build their rows with a function made per statement
 * (src/db/shaped-query.ts). Every row must be what pg itself would have built from the same
 * statement, whatever the columns' types and names, and a change of the columns behind a name
 * (a migration while the service runs) must be seen at the next execution.
 */
describe.skipIf(testDatabaseKind() !== 'postgres')('rows of the service statements (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Database;
  /** A plain pg pool on the same database, with the service's type parsers: the reference. */
  let plain: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase({ poolSize: 3 });
    db = database.db;
    plain = new pg.Pool({ connectionString: poolerMode(database.url!).url, max: 2, types: poolTypes });
    await plain.query(`
      CREATE TABLE shaped_rows (
        id int PRIMARY KEY, label text, big bigint, ok boolean, doc jsonb, tags text[],
        at timestamptz, amount numeric, "odd ""name"", here" text
      )`);
    await plain.query(`
      INSERT INTO shaped_rows VALUES
        (1, 'one', 9007199254740993, true, '{"a":[1,2]}', ARRAY['x','y'], '2026-11-27 10:00:00.123456+00', 1.50, 'q'),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, 'three', -1, false, '"text"', ARRAY[]::text[], '1999-01-01 00:00:00+00', 0, '')`);
  });

  afterAll(async () => {
    await plain?.end();
    await database?.drop();
  });

  const reference = async (text: string, values: unknown[] = []) => (await plain.query({ text, values })).rows;

  it('builds the same rows as pg for every column type, nulls and odd column names', async () => {
    const statement = { name: 'shaped_rows_all', text: 'SELECT * FROM shaped_rows WHERE id >= $1 ORDER BY id' };
    const expected = await reference(statement.text, [1]);
    expect(expected).toHaveLength(3);
    // Twice on each connection of the pool: the first execution makes the shape, the rest reuse it.
    for (let i = 0; i < 6; i++) expect(await db.read(statement, [1])).toEqual(expected);
    expect(await db.readUnnamed({ text: statement.text, values: [2] })).toEqual(await reference(statement.text, [2]));
  });

  it('keeps the last of two columns of the same name, as pg does', async () => {
    const statement = { name: 'shaped_rows_twice', text: `SELECT id, label AS x, big AS x FROM shaped_rows ORDER BY id` };
    const rows = await db.read<{ id: number; x: unknown }>(statement, []);
    expect(rows).toEqual(await reference(statement.text));
    expect(rows[0]).toEqual({ id: 1, x: '9007199254740993' });
  });

  it('answers an empty result with no rows', async () => {
    expect(await db.read({ name: 'shaped_rows_none', text: 'SELECT id FROM shaped_rows WHERE id < 0' }, [])).toEqual([]);
  });

  it('sees a change of the columns behind the same statement at its next execution', async () => {
    const statement = { name: 'shaped_rows_star', text: 'SELECT * FROM shaped_rows WHERE id = $1' };
    const before = await db.read<Record<string, unknown>>(statement, [1]);
    expect(Object.keys(before[0]!)).not.toContain('added');

    // A connection that prepared the statement before refuses it now (PostgreSQL: "cached plan must
    // not change result type"); a fresh one (a second Database: new connections, the same
    // process-wide shapes) prepares it anew and must get the new columns.
    const readFresh = async () => {
      const fresh = await openDatabase({ databaseUrl: database.url!, dataDir: '', poolSize: 1 });
      try {
        return await fresh.read<Record<string, unknown>>(statement, [1]);
      } finally {
        await fresh.close();
      }
    };
    // The same names, one of another type: its value is read with the new type's parser.
    await plain.query('ALTER TABLE shaped_rows ALTER COLUMN ok TYPE text');
    const retyped = await readFresh();
    expect(retyped).toEqual(await reference(statement.text, [1]));
    expect(retyped[0]).toMatchObject({ ok: 'true' });
    // One more column.
    await plain.query('ALTER TABLE shaped_rows ADD COLUMN added int DEFAULT 7');
    const widened = await readFresh();
    expect(widened).toEqual(await reference(statement.text, [1]));
    expect(widened[0]).toMatchObject({ added: 7, ok: 'true' });
  });

  it('fails a statement the database refuses and keeps the pool usable', async () => {
    await expect(db.read({ name: 'shaped_rows_bad', text: 'SELECT id FROM shaped_rows WHERE id = $1' }, ['not a number'])).rejects.toThrow(
      /invalid input syntax for type integer/,
    );
    expect(await db.read({ name: 'shaped_rows_one', text: 'SELECT id FROM shaped_rows WHERE id = $1' }, [3])).toEqual([{ id: 3 }]);
  });
});
