import type { GraphQLSchema } from 'graphql';
import { AppError } from '../errors.js';
import { newContext, releaseContext } from '../graphql/context.js';
import { toAppError } from '../graphql/errors.js';
import { createLoaders } from '../graphql/loaders.js';
import { readJsonObject } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { RequestScope } from '../http/scope.js';
import { textResponse, type TextReply } from '../http/text-response.js';
import { jsonResponse, successResponse, errorBody } from './envelope.js';
import { collectVariables, compileRouter } from './executor.js';
import { routes } from './routes.js';

/**
 * The /v1 REST face for the routes of the route table: match, authenticate, read the body,
 * check the inputs, run the GraphQL field, answer in the envelope.
 */
export function createRestHandler(options: { schema: GraphQLSchema; bodyLimitBytes: number }) {
  const { schema, bodyLimitBytes } = options;
  const router = compileRouter(schema, routes);

  async function handle(request: Incoming, url: URL, path: string, scope: RequestScope): Promise<TextReply> {
    const found = router.match(request.method, path);
    if (found.kind === 'not_found')
      throw new AppError('NOT_FOUND', `there is no route ${request.method} /v1${path}`, { method: request.method, path: `/v1${path}` });
    if (found.kind === 'method_not_allowed') {
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on /v1${path}; use ${found.allowed.join(' or ')}`,
        { allowed: found.allowed },
        { Allow: found.allowed.join(', ') },
      );
    }
    const { route, params } = found;
    scope.route = `${route.spec.method} /v1${route.spec.path}`;
    const viewer = await scope.authenticate();
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(request.method);
    const body = hasBody ? await readJsonObject(request, bodyLimitBytes) : undefined;
    const variables = collectVariables(route, { params, query: url.searchParams, body });
    const context = newContext({
      viewer,
      services: scope.services,
      requestId: scope.requestId,
      loaders: createLoaders(scope.services, viewer),
    });
    let result;
    try {
      result = await router.run(route, schema, variables, context);
    } finally {
      releaseContext(context);
    }
    if (result.errors?.length) {
      const { appError, unexpected } = toAppError(result.errors[0]);
      if (unexpected)
        scope.log.error(
          { err: result.errors[0]?.originalError ?? result.errors[0], requestId: scope.requestId },
          'unexpected error in a REST route',
        );
      throw appError;
    }
    const value = (result.data as Record<string, unknown>)[route.fieldName] as Record<string, unknown>;
    const status = route.spec.status ?? 200;
    if (route.spec.document) {
      return textResponse(value.body as string, { status, headers: { 'content-type': value.contentType as string } });
    }
    if (route.spec.list) return successResponse(value.data, status, value.pagination as never);
    return successResponse(value, status);
  }

  return { handle, router };
}

export function notFoundResponse(method: string, path: string): TextReply {
  return jsonResponse(errorBody('NOT_FOUND', `there is no route ${method} ${path}`, { method, path }), 404);
}
