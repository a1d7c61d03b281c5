/**
 * A read statement the service sends itself rather than through Prisma: the hottest reads, where
 * Prisma's per-call query planning costs more than the database does. On PostgreSQL it is a named
 * prepared statement, parsed once per connection; on PGlite it is sent with its parameters.
 * Each is declared once, in the `sql.ts` of its resource; its text is built from constants only.
 */
export interface Statement {
  /** Unique per text: PostgreSQL keeps one prepared statement per name and connection. */
  name: string;
  text: string;
}

/** Runs a named statement with its parameters (the service's Database.read, or a bare pg pool in the baseline). */
export type ReadRows = <T>(statement: Statement, values: unknown[]) => Promise<T[]>;
