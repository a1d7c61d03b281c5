import { AppError } from './errors.js';

/**
 * The precondition of a conditional write: `expected` (a revision the client read) must still be
 * the resource's. Null or undefined asks for no check.
 */
export function checkRevision(what: string, id: string, revision: number, expected: number | null | undefined): void {
  if (expected === null || expected === undefined || expected === revision) return;
  throw new AppError(
    'PRECONDITION_FAILED',
    `${what} '${id}' has changed since you read it (you have revision ${expected}, it is at revision ${revision}); read it again, apply your change to it, and save again`,
    { id, expectedRevision: expected, revision },
  );
}
