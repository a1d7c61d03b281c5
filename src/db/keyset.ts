import type { Statement } from './statement.js';

/**
 * The order of the newest-first lists and the rule of their cursors, once for Prisma's queries
 * and for the named statements: rows by a timestamp, then by id, both descending; the page after
 * a cursor holds the rows older than the cursor's position, or as old with a smaller id.
 */

/** Where a page of such a list ends: the timestamp and id of the last row seen. */
export interface Position {
  at: Date;
  id: string;
}

/** Prisma's orderBy for a list newest first by `field`. */
export function newestFirstOrderBy<F extends string>(field: F): [Record<F, 'desc'>, { id: 'desc' }] {
  return [{ [field]: 'desc' } as Record<F, 'desc'>, { id: 'desc' }];
}

/** Prisma's condition (an `OR`) for the rows after `position` in a list newest first by `field`. */
export function afterPosition<F extends string>(field: F, position: Position): Array<Record<string, unknown>> {
  return [{ [field]: { lt: position.at } }, { [field]: position.at, id: { lt: position.id } }];
}

/** The same order in SQL, over the timestamp column `column` (a constant) and `id`. */
function newestFirstSql(column: string): string {
  return `${column} DESC, id DESC`;
}

/** The same condition in SQL: the position's timestamp is parameter `$at`, its id `$id`. */
function afterPositionSql(column: string, at: number, id: number): string {
  return `(${column} < $${at} OR (${column} = $${at} AND id < $${id}))`;
}

/** A page of one owner's rows of a table, newest first, as the named statements send it. */
export interface OwnerPageSpec {
  /** The statement names start with it. */
  name: string;
  table: string;
  /** The selected columns, under Prisma's field names. */
  columns: string;
  /** The timestamp the list is ordered by. */
  orderColumn: string;
  /** The one optional equality filter: its column, the parameter's SQL type, and the name's suffix. */
  filter: { column: string; type: string; suffix: string };
  /** The column $1 is compared with (the owner's); `owner_id` unless named. */
  ownerColumn?: string;
  /** A fixed condition every row also meets (SQL written here, never from a request). */
  alwaysWhere?: string;
}

/**
 * The statements of a page of an owner's rows, newest first: owner $1, then the optional filter
 * value and the cursor position (timestamp, id), and the row count last. One statement per
 * combination, so each keeps a plan that uses the (owner_id, timestamp, id) index; every part
 * of the text comes from `spec`, never from a request.
 */
export function ownerPageStatements(spec: OwnerPageSpec): (withFilter: boolean, withCursor: boolean) => Statement {
  const statements = [false, true].flatMap((filtered) =>
    [false, true].map((after): Statement => {
      const conditions = [`${spec.ownerColumn ?? 'owner_id'} = $1`, ...(spec.alwaysWhere ? [spec.alwaysWhere] : [])];
      let n = 1;
      if (filtered) conditions.push(`${spec.filter.column} = $${++n}::${spec.filter.type}`);
      if (after) {
        conditions.push(afterPositionSql(spec.orderColumn, n + 1, n + 2));
        n += 2;
      }
      return {
        name: `${spec.name}${filtered ? spec.filter.suffix : ''}${after ? '_after' : ''}`,
        text: `SELECT ${spec.columns} FROM ${spec.table} WHERE ${conditions.join(' AND ')} ORDER BY ${newestFirstSql(spec.orderColumn)} LIMIT $${n + 1}`,
      };
    }),
  );
  return (withFilter, withCursor) => statements[Number(withFilter) * 2 + Number(withCursor)]!;
}
