import { GraphQLError } from 'graphql';
import { translateDbError } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { TextReply } from '../http/text-response.js';
import { jsonResponse } from '../rest/envelope.js';

/**
 * Turns whatever a resolver threw into an AppError. Known failures keep their code; anything
 * unexpected becomes INTERNAL_ERROR without internals (the caller logs the original).
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  let original: unknown = error;
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  const known = translateDbError(original);
  if (known) return { appError: known, unexpected: false };
  return { appError: new AppError('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged'), unexpected: true };
}

/** A GraphQL-over-HTTP answer carrying one error, for refusals made before an operation runs. */
export function graphqlErrorReply(error: AppError): TextReply {
  return jsonResponse(
    JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.code, details: error.details } }] }),
    error.status,
    error.headers,
  );
}

/**
 * The same error as a GraphQLError an execution result can carry: Yoga answers with the status and
 * headers of `extensions.http` and leaves them out of the body.
 */
export function toGraphQLError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: { code: error.code, details: error.details, http: { status: error.status, headers: error.headers } },
  });
}
