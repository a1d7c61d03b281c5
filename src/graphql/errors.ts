import { GraphQLError, type ASTNode } from 'graphql';
import type { AppError } from '../errors.js';
import type { TextReply } from '../http/text-response.js';
import { jsonResponse } from '../rest/envelope.js';

/**
 * What a GraphQL error is made of: the error table's `code`, a `message` and its `details`. An
 * AppError is one; the operation limits (src/graphql/limits.ts) and refused inputs name theirs
 * without the field list an AppError's VALIDATION_ERROR carries.
 */
export type GraphQLErrorParts = Pick<AppError, 'code' | 'message' | 'details'> & Partial<Pick<AppError, 'status' | 'headers'>>;

interface ErrorPlace {
  nodes?: readonly ASTNode[] | ASTNode;
  path?: readonly (string | number)[];
  /**
   * Whether Yoga answers with the error's status and headers (`extensions.http`, which Yoga leaves
   * out of the body). Not for a field error in an otherwise answered operation, which keeps the
   * answer's status.
   */
  withHttp?: boolean;
  /** Kept on the GraphQLError (never sent), so the REST face answers with exactly this error. */
  originalError?: Error;
}

/**
 * Every GraphQL error of the service is built here: `message`, and `extensions` holding the
 * error table's `code` and the `details`.
 */
export function toGraphQLError(error: GraphQLErrorParts, at: ErrorPlace = {}): GraphQLError {
  const extensions: Record<string, unknown> = { code: error.code, details: error.details };
  if (at.withHttp !== false) extensions.http = { status: error.status, headers: error.headers };
  return new GraphQLError(error.message, { nodes: at.nodes, path: at.path, originalError: at.originalError, extensions });
}

/** A GraphQL-over-HTTP answer carrying one error, for refusals made before an operation runs. */
export function graphqlErrorReply(error: AppError): TextReply {
  return jsonResponse(JSON.stringify({ errors: [toGraphQLError(error, { withHttp: false })] }), error.status, error.headers);
}
