import { Prisma } from '@prisma/client';
import type { KnownFailure } from '../errors.js';

/**
 * The one place database errors are recognised: a unique violation is a CONFLICT, a missing row
 * is NOT_FOUND, a broken foreign key or a NUL character in text is a VALIDATION_ERROR, and a
 * database that cannot be reached is SERVICE_UNAVAILABLE. Anything else stays unexpected.
 * `describeDbError` is the database's translator for `AppError.from` (src/errors.ts), registered
 * where the service is composed (src/app.ts); the error table itself knows no database.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') return true;
  return hasPgCode(error, '23505');
}

function hasPgCode(error: unknown, code: string): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth += 1) {
    const rec = e as {
      code?: unknown;
      originalCode?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } };
    };
    // pg's own error, Prisma's wrapped one, or the adapter's raw DriverAdapterError (its cause holds the code).
    if (rec.code === code || rec.originalCode === code || rec.meta?.driverAdapterError?.cause?.originalCode === code) return true;
    e = rec.cause;
  }
  return false;
}

/**
 * A database that cannot be reached or did not answer in time, in every form it reaches the
 * service: pg's socket errors and messages, the adapter's DriverAdapterError kinds
 * (ConnectionClosed, DatabaseNotReachable, SocketTimeout, TooManyConnections), the messages
 * Prisma gives them ("Server has closed the connection", "Operation has timed out"), and its
 * transaction manager's timeouts (an exhausted pool: "Unable to start a transaction in the given
 * time"; a transaction past its bound: "expired transaction").
 */
const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|timeout exceeded when trying to connect|terminating connection|database did not answer|Can't reach database|the database system is (starting up|shutting down|in recovery mode)|Client has encountered a connection error|DatabaseNotReachable|ConnectionClosed|SocketTimeout|TooManyConnections|Server has closed the connection|Operation has timed out|Unable to start a transaction in the given time|cannot be executed on an expired transaction|canceling statement due to (statement timeout|user request|lock timeout)|57P01|57P03/i;

/**
 * SQLSTATEs of the same conditions: the statement was cancelled (57014, by the query bound or
 * statement_timeout), a lock was not granted in time (55P03), the server is shutting down or
 * starting (57P01-57P03), has no connection slot (53300), or the connection broke (class 08).
 */
const UNAVAILABLE_SQLSTATES = ['57014', '55P03', '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004'];

/** Prisma's codes for the same: unreachable, timed out, closed, pool timeout, too many connections. */
const UNAVAILABLE_PRISMA_CODES = ['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037'];

function isDatabaseUnavailable(error: unknown): boolean {
  if (UNAVAILABLE_SQLSTATES.some((code) => hasPgCode(error, code))) return true;
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e; depth += 1) {
    const text = e instanceof Error ? `${e.name} ${e.message} ${(e as { code?: string }).code ?? ''}` : String(e);
    if (UNAVAILABLE.test(text)) return true;
    if (e instanceof Prisma.PrismaClientKnownRequestError && UNAVAILABLE_PRISMA_CODES.includes(e.code)) return true;
    // A DriverAdapterError keeps its kind in `cause` (an object, not an Error).
    const kind = (e as { cause?: { kind?: unknown } }).cause?.kind;
    if (typeof kind === 'string' && /^(ConnectionClosed|DatabaseNotReachable|SocketTimeout|TooManyConnections)$/.test(kind)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A known database failure, in the terms of the error table. */
export function describeDbError(error: unknown): KnownFailure | null {
  if (isUniqueViolation(error)) return { code: 'CONFLICT', message: 'this resource already exists' };
  // PostgreSQL text and jsonb cannot hold U+0000; the value came from the client, so it is a bad input.
  if (hasPgCode(error, '22021') || hasPgCode(error, '22P05')) {
    return {
      code: 'VALIDATION_ERROR',
      message: 'a text value contains the NUL character (\\u0000), which cannot be stored',
      details: { reason: 'nul_character' },
    };
  }
  // Prisma cannot even serialise a string holding an unpaired UTF-16 surrogate (a JSON escape such
  // as \ud800 that GraphQL accepted); nothing was sent to the database.
  if (error instanceof Error && /unexpected end of hex escape|lone (leading|trailing) surrogate|unpaired surrogate/i.test(error.message)) {
    return {
      code: 'VALIDATION_ERROR',
      message: 'a text value contains an unpaired surrogate (\\uD800 to \\uDFFF), which is not valid Unicode text',
      details: { reason: 'unpaired_surrogate' },
    };
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2025') return { code: 'NOT_FOUND', message: 'the resource was not found' };
    if (error.code === 'P2003') return { code: 'VALIDATION_ERROR', message: 'a referenced resource does not exist' };
  }
  if (isDatabaseUnavailable(error)) {
    return { code: 'SERVICE_UNAVAILABLE', message: 'the database is unavailable; retry shortly', headers: { 'Retry-After': '2' } };
  }
  return null;
}
