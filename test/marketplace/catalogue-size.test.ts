import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogueSize, isLarge } from '../../src/marketplace/catalogue-size.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** When search takes the plans of a large catalogue (MARKETPLACE_LARGE_FROM). */
describe('catalogue size', () => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  });
  afterAll(() => database?.drop());

  it('counts a table as large from the line on, never before it is analyzed, and always at 0', () => {
    expect(isLarge(199_999, 200_000)).toBe(false);
    expect(isLarge(200_000, 200_000)).toBe(true);
    expect(isLarge(-1, 1)).toBe(false);
    expect(isLarge(-1, 0)).toBe(true);
  });

  it("reads the table's estimate at most once a minute, and not at all when the line is 0", async () => {
    let now = 0;
    const readsOf = () => statements.filter((s) => s.includes('reltuples')).length;
    const before = readsOf();
    expect(await createCatalogueSize(database.db, 0, () => now).large()).toBe(true);
    expect(readsOf()).toBe(before);

    const size = createCatalogueSize(database.db, 1, () => now);
    await database.db.prisma.$executeRawUnsafe('ANALYZE workflows');
    // An empty table, analyzed: 0 rows, under the line.
    expect(await Promise.all([size.large(), size.large()])).toEqual([false, false]);
    expect(readsOf()).toBe(before + 1);
    await database.db.prisma.$executeRawUnsafe(
      `INSERT INTO users (id, email, created_at, updated_at) VALUES ('usr_size', 'size@example.com', now(), now())`,
    );
    await database.db.prisma.$executeRawUnsafe(
      `INSERT INTO workflows (id, owner_id, name, description, visibility, category, tags, current_version, manifest, created_at, updated_at)
       VALUES ('wf_size', 'usr_size', 'Sized', '', 'public', 'size', '{}', '1.0.0', '{}', now(), now())`,
    );
    await database.db.prisma.$executeRawUnsafe('ANALYZE workflows');
    now += 59_000;
    expect(await size.large()).toBe(false);
    now += 1_000;
    expect(await size.large()).toBe(true);
    expect(readsOf()).toBe(before + 2);
  });
});
