import pg from 'pg';

/** PostgreSQL's type id of `text[]` (Prisma's `String[]`: tags, enabled adapters). */
export const TEXT_ARRAY: number = 1009;

/** The driver's own parser of the type (postgres-array), for every form the fast path leaves. */
const driverParser = pg.types.getTypeParser(TEXT_ARRAY, 'text') as (text: string) => unknown;

const LBRACE = 123;
const RBRACE = 125;
const DQUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

/**
 * A one-dimensional `text[]` whose elements PostgreSQL wrote without quotes (`{api,review,NULL}`),
 * cut at its commas; any other form (a quoted or escaped element, a nested array, bounds) goes to
 * the driver's parser. The driver reads every array character by character, with an object per
 * character; the same answer as it for every input (test/db/text-array.test.ts): an unquoted
 * `NULL` is null, and an empty element, which PostgreSQL never writes unquoted, is skipped as the
 * driver skips it.
 */
export function parseTextArray(text: string): unknown {
  const last = text.length - 1;
  if (last < 1 || text.charCodeAt(0) !== LBRACE || text.charCodeAt(last) !== RBRACE) return driverParser(text);
  for (let at = 1; at < last; at += 1) {
    const code = text.charCodeAt(at);
    if (code === DQUOTE || code === BACKSLASH || code === LBRACE || code === RBRACE) return driverParser(text);
  }
  const elements: (string | null)[] = [];
  let start = 1;
  for (let at = 1; at <= last; at += 1) {
    if (at < last && text.charCodeAt(at) !== COMMA) continue;
    if (at > start) {
      const element = text.slice(start, at);
      elements.push(element === 'NULL' ? null : element);
    }
    start = at + 1;
  }
  return elements;
}
