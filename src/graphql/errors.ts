import { GraphQLError, type ASTNode } from 'graphql';
import { AppError } from '../errors.js';
import type { TextReply } from '../http/text-response.js';
import { jsonResponse } from '../rest/envelope.js';

/**
 * How an AppError appears in GraphQL, built here and nowhere else: `message`, and `extensions`
 * holding the error table's `code` and the `details`. `http` (status and headers) is for Yoga,
 * which answers with it and leaves it out of the body.
 */
function extensionsOf(error: AppError): { code: string; details: Record<string, unknown> } {
  return { code: error.code, details: error.details };
}

/** A GraphQL-over-HTTP answer carrying one error, for refusals made before an operation runs. */
export function graphqlErrorReply(error: AppError): TextReply {
  return jsonResponse(
    JSON.stringify({ errors: [{ message: error.message, extensions: extensionsOf(error) }] }),
    error.status,
    error.headers,
  );
}

/**
 * The same error as a GraphQLError an execution result can carry, at the nodes and path of the
 * field that failed when there is one. `http` is set unless `withHttp` is false (a field error in
 * an otherwise answered operation keeps the answer's status).
 */
export function toGraphQLError(
  error: AppError,
  at: { nodes?: readonly ASTNode[] | ASTNode; path?: readonly (string | number)[]; withHttp?: boolean } = {},
): GraphQLError {
  const http = at.withHttp === false ? {} : { http: { status: error.status, headers: error.headers } };
  return new GraphQLError(error.message, { nodes: at.nodes, path: at.path, extensions: { ...extensionsOf(error), ...http } });
}

/**
 * `AppError.from` in the shape the execution paths of REST, GraphQL and the tool endpoint read.
 * @deprecated call `AppError.from` (src/errors.ts) and read `unexpected` from the error.
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  const appError = AppError.from(error);
  return { appError, unexpected: appError.unexpected };
}
