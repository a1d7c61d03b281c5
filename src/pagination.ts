import type { Position } from './db/keyset.js';
import { AppError } from './errors.js';

/** The pagination object of a list answer (spec 2.2). */
export interface PageInfo {
  nextCursor: string | null;
  hasMore: boolean;
  count: number;
}

/**
 * Opaque cursors: base64url of a small JSON array tagged with the list (and sort order) it
 * belongs to. A cursor from another list or sort order, or one that does not decode to the
 * expected shape, is refused with 400; a well-formed one only positions the caller within
 * data they may already read.
 */
export type CursorValue = string | number;

export function encodeCursor(kind: string, values: CursorValue[]): string {
  return Buffer.from(JSON.stringify([kind, ...values]), 'utf8').toString('base64url');
}

export const badCursor = () =>
  new AppError('VALIDATION_ERROR', 'cursor is not valid for this list: pass the nextCursor of a previous page unchanged', {
    field: 'cursor',
  });

export function decodeCursor(cursor: string, kind: string, shape: readonly ('string' | 'number')[]): CursorValue[] {
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed[0] !== kind || parsed.length !== shape.length + 1) throw badCursor();
  const values = parsed.slice(1) as unknown[];
  shape.forEach((type, i) => {
    const v = values[i];
    // PostgreSQL text cannot hold U+0000: a forged value with one is a 400, not a database error.
    if (type === 'number' ? typeof v !== 'number' || !Number.isFinite(v) : typeof v !== 'string' || v.includes('\u0000')) throw badCursor();
  });
  return values as CursorValue[];
}

/**
 * The moments a cursor may hold: every row's timestamp is within them, and PostgreSQL stores all of
 * them (JavaScript dates reach 271,821 BC, which a query cannot even be sent with).
 */
const EARLIEST_CURSOR_TIME = Date.UTC(1970, 0, 1);
const LATEST_CURSOR_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function cursorDate(value: string | number): Date {
  const date = new Date(value);
  const ms = date.getTime();
  if (Number.isNaN(ms) || ms < EARLIEST_CURSOR_TIME || ms > LATEST_CURSOR_TIME) throw badCursor();
  return date;
}

/** The position a cursor of such a list names: the timestamp and id of the last row seen. */
export function timeCursorPosition(cursor: string, kind: string): Position {
  const [at, id] = decodeCursor(cursor, kind, ['string', 'string']) as [string, string];
  return { at: cursorDate(at), id };
}

/** The same for a list whose cursors hold the timestamp as epoch milliseconds (deployments). */
export function epochCursorPosition(cursor: string, kind: string): Position {
  const [ms, id] = decodeCursor(cursor, kind, ['number', 'string']) as [number, string];
  return { at: cursorDate(ms), id };
}

/** The cursor values of a row in such a list. */
export const timeCursorOf = (at: Date, id: string): CursorValue[] => [at.toISOString(), id];

export interface LimitRule {
  fallback?: number;
  max?: number;
}

/** The page size of a list: default 20, at least 1, at most `max` (100). */
export function pageLimit(limit: number | null | undefined, rule: LimitRule = {}): number {
  const max = rule.max ?? 100;
  if (limit === null || limit === undefined) return rule.fallback ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new AppError('VALIDATION_ERROR', `limit must be an integer from 1 to ${max}`, { field: 'limit', min: 1, max });
  }
  return limit;
}

export interface Page<T> {
  data: T[];
  pagination: PageInfo;
}

/**
 * Builds a page from rows fetched with `limit + 1`: the extra row only tells whether more exist.
 * `cursorOf` gives the cursor values of the last row kept.
 */
export function toPage<R, T>(rows: R[], limit: number, kind: string, cursorOf: (row: R) => CursorValue[], map: (row: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const kept = hasMore ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    data: kept.map(map),
    pagination: {
      nextCursor: hasMore && last !== undefined ? encodeCursor(kind, cursorOf(last)) : null,
      hasMore,
      count: kept.length,
    },
  };
}

/** toPage for a list newest first by the timestamp `field` (then id), its rows as they are. */
export function newestFirstPage<F extends string, R extends Record<F, Date> & { id: string }>(
  rows: R[],
  limit: number,
  kind: string,
  field: F,
): Page<R> {
  return toPage(
    rows,
    limit,
    kind,
    (r) => timeCursorOf(r[field], r.id),
    (r) => r,
  );
}
