/**
 * The one error table of the service (spec section 7). A code fixes the HTTP
 * status of REST answers, the GraphQL `extensions.code` and the JSON-RPC error
 * code of the tool endpoint.
 */
export const errorTable = {
  VALIDATION_ERROR: { status: 400, jsonRpc: -32602 },
  UNAUTHORIZED: { status: 401, jsonRpc: -32001 },
  // Not -32002: MCP uses that for "resource not found".
  PLAN_LIMIT_EXCEEDED: { status: 402, jsonRpc: -32010 },
  FORBIDDEN: { status: 403, jsonRpc: -32003 },
  NOT_FOUND: { status: 404, jsonRpc: -32004 },
  METHOD_NOT_ALLOWED: { status: 405, jsonRpc: -32601 },
  CONFLICT: { status: 409, jsonRpc: -32009 },
  // A write's If-Match / expectedRevision names a revision the resource no longer has.
  PRECONDITION_FAILED: { status: 412, jsonRpc: -32012 },
  PAYLOAD_TOO_LARGE: { status: 413, jsonRpc: -32600 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, jsonRpc: -32600 },
  RATE_LIMITED: { status: 429, jsonRpc: -32029 },
  INTERNAL_ERROR: { status: 500, jsonRpc: -32603 },
  BILLING_NOT_CONFIGURED: { status: 501, jsonRpc: -32603 },
  SERVICE_UNAVAILABLE: { status: 503, jsonRpc: -32053 },
} as const;

export type ErrorCode = keyof typeof errorTable;

export type ErrorDetails = Record<string, unknown>;

/** A failure a peer of the service (the database) knows, in the terms of the table. */
export interface KnownFailure {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
  headers?: Record<string, string>;
}

/** Recognises a peer's failures; null for any it does not know. */
export type ErrorTranslator = (error: unknown) => KnownFailure | null;

const translators = new Set<ErrorTranslator>();

/**
 * Adds a peer's translator to `AppError.from`. The composition registers the database's
 * (src/app.ts, src/db/errors.ts), so this table depends on no peer: the command line bundles it
 * without the database.
 */
export function registerErrorTranslator(translate: ErrorTranslator): void {
  translators.add(translate);
}

function knownFailure(error: unknown): KnownFailure | null {
  for (const translate of translators) {
    const known = translate(error);
    if (known) return known;
  }
  return null;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Extra response headers the error implies (Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;
  /**
   * Set only by `AppError.from` on the INTERNAL_ERROR standing for a failure nobody expected:
   * the face that answers logs the original (`cause`) and the client sees nothing of it.
   */
  readonly unexpected: boolean = false;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = code === 'VALIDATION_ERROR' ? asFieldList(message, details) : details;
    this.headers = headers;
  }

  get status(): number {
    return errorTable[this.code].status;
  }

  /**
   * Whatever was thrown, as the service's error: an AppError stays itself (also when a GraphQL
   * execution wrapped it), a failure a registered translator knows gets its code, and anything
   * else becomes an INTERNAL_ERROR without internals, marked `unexpected`, with the original as
   * its `cause` for the log.
   */
  static from(error: unknown): AppError {
    let original: unknown = error;
    // A GraphQLError carries what a resolver threw as `originalError` (possibly wrapped again).
    while (original instanceof Error && !(original instanceof AppError) && (original as { originalError?: unknown }).originalError)
      original = (original as { originalError?: unknown }).originalError;
    if (original instanceof AppError) return original;
    const known = knownFailure(original);
    if (known) return new AppError(known.code, known.message, known.details, known.headers);
    const internal = new AppError('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged');
    (internal as { unexpected: boolean }).unexpected = true;
    internal.cause = original;
    return internal;
  }
}

/**
 * Every input error has one shape (docs/decisions.md, "error.details"): `details.fields`, a list
 * of `{ field, message }` naming the offending inputs, empty only when no single input can be
 * named (JSON nested too deep, a NUL character found by the database). A single
 * `details.field` (some checks name the one input they refuse) becomes that list; other keys
 * (`allowed`, `min`, `max`, `reason`…) stay beside it.
 */
function asFieldList(message: string, details: ErrorDetails): ErrorDetails {
  if (Array.isArray(details.fields)) return details;
  const { field, ...rest } = details;
  return { fields: typeof field === 'string' ? [{ field, message }] : [], ...rest };
}

export const notFound = (what: string, id?: string) =>
  new AppError('NOT_FOUND', id ? `${what} '${id}' was not found` : `${what} was not found`, id ? { id } : {});

/**
 * One offending input of a 400 VALIDATION_ERROR. Every input error carries
 * `details.fields: FieldProblem[]` (docs/decisions.md, "error.details"); other keys may sit beside it.
 */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The one way a 400 for offending inputs is assembled: the message is the problems' messages
 * joined by "; ", `details.fields` names each of them, and `extra` (manifestErrors, allowed…) sits
 * beside it.
 */
export function validationError(problems: FieldProblem[], extra: ErrorDetails = {}): AppError {
  return new AppError('VALIDATION_ERROR', problems.map((p) => p.message).join('; '), { fields: problems, ...extra });
}
