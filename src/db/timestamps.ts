import pg from 'pg';

/** PostgreSQL's type id of `timestamp with time zone`. */
export const TIMESTAMPTZ = 1184;

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
  const year = 100 * twoDigits(text, 0) + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  // The fraction is 1 to 6 digits after the point: milliseconds, the rest dropped as the driver does.
  const ms = n > 22 ? 1000 * fraction(text, 20, n - 3) : 0;
  if (!(year >= 100 && month >= 1 && day >= 1 && hour >= 0 && minute >= 0 && second >= 0 && ms >= 0)) return driverParser(text);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
}

/** The number two decimal digits at `at` write, NaN where either is not a digit (read by code, not cut out and converted). */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - ZERO;
  const units = text.charCodeAt(at + 1) - ZERO;
  return tens >= 0 && tens <= 9 && units >= 0 && units <= 9 ? 10 * tens + units : NaN;
}

const POWERS_OF_TEN = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000];

/**
 * The fraction the digits from `from` to `to` write after a point, NaN when there are none or one
 * is not a digit. The same number as `parseFloat('.' + digits)`, which the driver computes: the
 * digits as a whole number and the power of ten are both exact, and a division is rounded to the
 * nearest number as parsing the text is.
 */
function fraction(text: string, from: number, to: number): number {
  if (to <= from) return NaN;
  let digits = 0;
  for (let at = from; at < to; at += 1) {
    const digit = text.charCodeAt(at) - ZERO;
    if (!(digit >= 0 && digit <= 9)) return NaN;
    digits = 10 * digits + digit;
  }
  return digits / POWERS_OF_TEN[to - from]!;
}
