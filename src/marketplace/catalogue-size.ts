import type { Database } from '../db/index.js';

/** How long an instance trusts the size it read. */
const REFRESH_MS = 60_000;

/** The workflows table's row estimate, kept by ANALYZE and autovacuum (-1: never analyzed). */
export const CATALOGUE_ROWS = `SELECT reltuples::float8 AS "rows" FROM pg_class WHERE oid = 'workflows'::regclass`;

/** Whether a table of `rows` (its estimate) is large, from `largeFrom` rows on (0: always). */
export const isLarge = (rows: number, largeFrom: number): boolean => largeFrom === 0 || rows >= largeFrom;

/**
 * Whether the marketplace is large enough for the search plans that pay off only at scale: the
 * hot band and the words a prefix starts (src/marketplace/sql.ts). Each costs a small catalogue
 * more than it saves: a second plan in every tier's statement, one more statement a search. Both
 * ways give the same results, so the size is the table's estimate, read at most once a minute per
 * instance, and an instance that has not read it yet, or reads it while the table grows past the
 * line, only searches a little slower for that minute.
 */
export function createCatalogueSize(db: Database, largeFrom: number, now: () => number = Date.now) {
  let known: { large: boolean; at: number } | null = null;
  let reading: Promise<boolean> | null = null;

  async function read(): Promise<boolean> {
    const [row] = await db.readUnnamed<{ rows: number }>({ text: CATALOGUE_ROWS, values: [] });
    const large = isLarge(row?.rows ?? -1, largeFrom);
    known = { large, at: now() };
    return large;
  }

  return {
    async large(): Promise<boolean> {
      if (largeFrom === 0) return true;
      if (known && now() - known.at < REFRESH_MS) return known.large;
      reading ??= read().finally(() => {
        reading = null;
      });
      return reading;
    },
  };
}
