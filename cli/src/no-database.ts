/**
 * Stands in for src/db/errors.ts in the command line's bundle (cli/build.mjs): the command line has
 * no database, so no error it meets is a database error.
 */
export function describeDbError(_error: unknown): null {
  return null;
}
