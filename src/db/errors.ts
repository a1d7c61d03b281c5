import { Prisma } from '@prisma/client';

/**
 * The one place database errors are recognised: a unique violation is a CONFLICT, a missing row
 * is NOT_FOUND, a broken foreign key or a NUL character in text is a VALIDATION_ERROR, and a
 * database that cannot be reached is SERVICE_UNAVAILABLE. Anything else stays unexpected.
 * `AppError.from` (src/errors.ts) turns what `describeDbError` says into the service's error; this
 * module does not import it, so the error table depends on it and not the other way round.
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

function isDatabaseUnavailable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e; depth += 1) {
    const text = e instanceof Error ? `${e.name} ${e.message} ${(e as { code?: string }).code ?? ''}` : String(e);
    if (UNAVAILABLE.test(text)) return true;
    if (e instanceof Prisma.PrismaClientKnownRequestError && ['P1001', 'P1002', 'P1017', 'P2024'].includes(e.code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A known database failure, in the terms of the error table. */
export interface DbErrorDescription {
  code: 'CONFLICT' | 'VALIDATION_ERROR' | 'NOT_FOUND' | 'SERVICE_UNAVAILABLE';
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function describeDbError(error: unknown): DbErrorDescription | null {
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
