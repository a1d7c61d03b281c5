import { Prisma } from '@prisma/client';
import { AppError } from '../errors.js';

/**
 * The one place database errors become AppErrors: a unique violation is a CONFLICT, a
 * missing row is NOT_FOUND, a broken foreign key or a NUL character in text is a
 * VALIDATION_ERROR, and a database that cannot be reached is SERVICE_UNAVAILABLE. Anything
 * else stays unexpected.
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

const UNAVAILABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection terminated|timeout exceeded when trying to connect|terminating connection|database did not answer|Can't reach database|the database system is (starting up|shutting down)|Client has encountered a connection error|DatabaseNotReachable|57P01|57P03/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e; depth += 1) {
    const text = e instanceof Error ? `${e.name} ${e.message} ${(e as { code?: string }).code ?? ''}` : String(e);
    if (UNAVAILABLE.test(text)) return true;
    if (e instanceof Prisma.PrismaClientKnownRequestError && ['P1001', 'P1002', 'P1017', 'P2024'].includes(e.code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export function translateDbError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (isUniqueViolation(error)) return new AppError('CONFLICT', 'this resource already exists');
  // PostgreSQL text and jsonb cannot hold U+0000; the value came from the client, so it is a bad input.
  if (hasPgCode(error, '22021') || hasPgCode(error, '22P05')) {
    return new AppError('VALIDATION_ERROR', 'a text value contains the NUL character (\\u0000), which cannot be stored', {
      reason: 'nul_character',
    });
  }
  // Prisma cannot even serialise a string holding an unpaired UTF-16 surrogate (a JSON escape such
  // as \ud800 that GraphQL accepted); nothing was sent to the database.
  if (error instanceof Error && /unexpected end of hex escape|lone (leading|trailing) surrogate|unpaired surrogate/i.test(error.message)) {
    return new AppError(
      'VALIDATION_ERROR',
      'a text value contains an unpaired surrogate (\\uD800 to \\uDFFF), which is not valid Unicode text',
      { reason: 'unpaired_surrogate' },
    );
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2025') return new AppError('NOT_FOUND', 'the resource was not found');
    if (error.code === 'P2003') return new AppError('VALIDATION_ERROR', 'a referenced resource does not exist');
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'the database is unavailable; retry shortly', {}, { 'Retry-After': '2' });
  }
  return null;
}
