import { getOperationAST, type DocumentNode } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import type { GraphQLPipeline, GraphQLServerContext } from './yoga.js';

/**
 * The common /graphql request, a JSON POST of `{ query, variables?, operationName? }` that asks
 * for JSON back, answered through Yoga's enveloped pipeline and Yoga's own result processor
 * without Yoga's HTTP layer (its Fetch API request, parameter parsing, content negotiation and
 * hooks), as the REST face runs its operations (src/rest/handler.ts). The dashboard's and the
 * benchmark's requests are of this kind. Every other request, and one whose document does not
 * parse or validate or names no operation, is left to Yoga (`null`): nothing has run by then, and
 * Yoga answers it as it always has. test/graphql/plain-post.test.ts sends the same requests both
 * ways and compares status, headers and body.
 */

export interface PlainParams {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

const JSON_ONLY = /^application\/json(;charset=utf-8)?$/;

/** Whether Yoga would answer `application/json` for this Accept header and nothing else could: none, or exactly JSON. */
export function asksForJson(accept: string | null): boolean {
  return accept === null || JSON_ONLY.test(accept.replace(/\s/g, '').toLowerCase());
}

/** Whether the body is declared as JSON in UTF-8 (Yoga reads it as JSON then). */
export function sendsJson(contentType: string | null): boolean {
  return contentType !== null && JSON_ONLY.test(contentType.replace(/\s/g, '').toLowerCase());
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parameters of a body that has exactly Yoga's three, each of the type Yoga takes; null for anything else. */
export function plainParams(body: string): PlainParams | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(parsed)) return null;
  const params: PlainParams = { query: '' };
  for (const key in parsed) {
    const value = parsed[key];
    if (key === 'query' && typeof value === 'string' && value !== '') params.query = value;
    else if (key === 'variables' && (value === null || isObject(value))) params.variables = value ?? undefined;
    else if (key === 'operationName' && (value === null || typeof value === 'string')) params.operationName = value ?? undefined;
    else return null;
  }
  return params.query ? params : null;
}

/** The answer to a plain request, or null to leave the request to Yoga (nothing has run). */
export async function answerPlainPost(
  pipeline: GraphQLPipeline,
  fetchApi: { Response: typeof Response },
  params: PlainParams,
  initial: GraphQLServerContext & { request: Request },
): Promise<Response | null> {
  // The context Yoga's own handling would give the operation: the request and its parameters
  // beside the service's fields (Yoga's plugins read them: a parse failure is marked as the
  // client's when there is a request, and that mark stays with the document in the parse cache).
  const enveloped = pipeline({ ...initial, params } as GraphQLServerContext);
  let document: DocumentNode;
  try {
    document = enveloped.parse(params.query);
  } catch {
    return null;
  }
  if (enveloped.validate(enveloped.schema, document).length > 0) return null;
  const operation = getOperationAST(document, params.operationName);
  if (!operation || operation.operation === 'subscription') return null;
  const context = enveloped.contextFactory();
  const result = await enveloped.execute({
    schema: enveloped.schema,
    document,
    contextValue: context instanceof Promise ? await context : context,
    variableValues: params.variables,
    operationName: params.operationName,
  });
  return processRegularResult(result as never, fetchApi as never, 'application/json') as Response;
}
