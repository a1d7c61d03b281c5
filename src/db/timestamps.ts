import pg from 'pg';

/** PostgreSQL's type id of `timestamp with time zone`. */
const TIMESTAMPTZ = 1184;

/** The driver's own parser of the type (postgres-date), for every form the fast path leaves. */
const driverParser = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

const PLUS = 43;
const ZERO = 48;
const SPACE = 32;

/**
 * A `timestamptz` as PostgreSQL writes it for a UTC session (`2026-11-24 23:39:26.123456+00`), read
 * by position; any other form (another offset, a BC year, `infinity`, a five-digit year) goes to
 * the driver's parser. The same Date as the driver's parser for every input (test/db/timestamps.test.ts),
 * in less time: every row the service reads with its own statements has two or three of them,
 * sixty on a page of workflows (docs/decisions.md, "Performance").
 */
export function parseTimestamptz(text: string): Date | number | null {
  const n = text.length;
  if (
    n < 22 ||
    n > 29 ||
    text.charCodeAt(n - 3) !== PLUS ||
    text.charCodeAt(n - 2) !== ZERO ||
    text.charCodeAt(n - 1) !== ZERO ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(10) !== SPACE ||
    (n > 22 && text.charCodeAt(19) !== 46)
  ) {
    return driverParser(text);
  }
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  const hour = Number(text.slice(11, 13));
  const minute = Number(text.slice(14, 16));
  const second = Number(text.slice(17, 19));
  // The fraction is 1 to 6 digits after the point: milliseconds, the rest dropped as the driver does.
  const ms = n > 22 ? 1000 * Number(text.slice(19, n - 3)) : 0;
  if (!(year >= 100 && month >= 1 && day >= 1 && hour >= 0 && minute >= 0 && second >= 0 && ms >= 0)) return driverParser(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** The type parsers of the service's PostgreSQL pool: the driver's, with the fast `timestamptz`. */
export const poolTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};
