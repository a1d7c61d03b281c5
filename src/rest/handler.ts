import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { AppError } from '../errors.js';
import type { GraphQLPipeline, GraphQLServerContext } from '../graphql/yoga.js';
import { readJsonObject } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { RequestScope } from '../http/scope.js';
import type { Viewer } from '../auth/viewer.js';
import { textResponse, type TextReply } from '../http/text-response.js';
import { successResponse } from './envelope.js';
import { collectVariables, compileRouter, ETAG_FIELD, ROUTE_OPERATION, type CompiledRoute, type RestRouter } from './route-checks.js';
import { createsResource, etagOf, expectedRevisionOf, fingerprintOf, replayOf } from './preconditions.js';
import { routes } from './routes.js';
import { pathForErrors } from '../text.js';

/**
 * The /v1 REST face for the routes of the route table: match, authenticate, read the body,
 * check the inputs, run the route's operation through the GraphQL pipeline, answer in the envelope.
 *
 * The pipeline is the one /graphql runs on (src/graphql/yoga.ts): its context factory, graphql-jit
 * and the release of the context and masking of errors around execution. A route's operation is
 * built and parsed once, and validated once, on the route's first request, with the pipeline's own
 * rules, as the parse and validation caches do for a repeated /graphql document; its cost is not
 * measured (see `ownOperation`). The strict input check runs before execution.
 *
 * Validation waits for a route's first request rather than running for every route at start, whose
 * garbage would stay resident at idle (docs/performance.md, "Memory at idle");
 * test/rest/operations.test.ts validates them all, so a route table mistake still fails CI.
 */
export function createRestHandler(options: {
  schema: GraphQLSchema;
  pipeline: GraphQLPipeline;
  bodyLimitBytes: number;
  /** Who may see the operators' routes (routes.ts, operatorsOnly); nobody without it. */
  isOperator?: (viewer: Viewer) => boolean;
}) {
  const { schema, pipeline, bodyLimitBytes, isOperator = () => false } = options;
  const router = compileRouter(schema, routes);
  const checking = pipeline();
  /** What the pipeline's validation says against a route's operation: nothing, for a correct route. */
  const refusalsOf = (route: CompiledRoute): string[] =>
    (checking.validate(checking.schema, route.document) as readonly GraphQLError[]).map((e) => e.message);
  const validated = new Set<CompiledRoute>();
  function checkOperation(route: CompiledRoute): void {
    if (validated.has(route)) return;
    const refused = refusalsOf(route);
    // A bug of the route table: answered as unexpected (500) and logged.
    if (refused.length) throw new Error(`route ${route.spec.method} ${route.spec.path}: its operation is refused: ${refused.join('; ')}`);
    validated.add(route);
  }
  const runner: RouteRunner = { router, pipeline, checkOperation };

  async function handle(request: Incoming, url: URL, path: string, scope: RequestScope): Promise<TextReply> {
    const { route, params } = matchRoute(router, request.method, path);
    scope.route = route.label;
    checkOperation(route);
    // An operators' route is, to anyone else (signed in or not), a route that does not exist:
    // decided before the body and inputs are read, so that no answer tells it apart.
    const viewer = route.spec.operatorsOnly
      ? await scope.authenticate().then(
          (v) => (isOperator(v) ? v : null),
          () => null,
        )
      : await scope.authenticate();
    if (viewer === null) throw noRoute(request.method, path);
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(request.method);
    const body = hasBody ? await readJsonObject(request, bodyLimitBytes) : undefined;
    const variables = collectVariables(route, { params, query: url.searchParams, body });
    if (route.spec.ifMatch) {
      const expected = expectedRevisionOf(request.headers.get('if-match'));
      if (expected !== null) variables[route.spec.ifMatch] = expected;
    }
    const key = request.headers.get('idempotency-key');
    const call: RouteCall = { route, variables, viewer, scope, method: request.method, path };
    if (key === null || !createsResource(route.spec)) return run(pipeline, call);
    return runKeyed(runner, call, key, body);
  }

  /** Every route's refusals, `METHOD /path: message` (none for a correct route table). */
  const refusals = (): string[] =>
    router.routes.flatMap((route) => refusalsOf(route).map((message) => `${route.spec.method} ${route.spec.path}: ${message}`));

  return { handle, router, refusals };
}

/** What runs a route's operation: the routes, the pipeline, and the check of a route's operation. */
interface RouteRunner {
  router: RestRouter;
  pipeline: GraphQLPipeline;
  /** Validates the route's operation once, on its first request; throws for a bug of the route table. */
  checkOperation(route: CompiledRoute): void;
}

/** One request to a route, with its checked variables. */
interface RouteCall {
  route: CompiledRoute;
  variables: Record<string, unknown>;
  viewer: Viewer;
  scope: RequestScope;
  method: string;
  path: string;
}

/** The route of a method and path, or the refusal: no such route, or the methods the path allows. */
function matchRoute(router: RestRouter, method: string, path: string): { route: CompiledRoute; params: Record<string, string> } {
  const found = router.match(method, path);
  if (found.kind === 'not_found') throw noRoute(method, path);
  // A wrong method on an operators' path would tell that the path exists (for operators too).
  if (found.kind === 'method_not_allowed' && router.routes.every((r) => r.spec.operatorsOnly || !r.pattern.test(path)))
    throw noRoute(method, path);
  if (found.kind === 'method_not_allowed') {
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `${method} is not allowed on /v1${pathForErrors(path)}; use ${found.allowed.join(' or ')}`,
      { allowed: found.allowed },
      { Allow: found.allowed.join(', ') },
    );
  }
  return found;
}

/** A create sent with an Idempotency-Key: run once, its answer kept for the key's repeats. */
async function runKeyed(runner: RouteRunner, call: RouteCall, key: string, body: Record<string, unknown> | undefined): Promise<TextReply> {
  const { viewer, scope, method, path } = call;
  const claim = await scope.services.idempotency.claim({
    userId: viewer.userId,
    key,
    request: fingerprintOf(method, path, body),
  });
  if (claim.kind === 'replay') return replayOf(claim.answer);
  if (claim.kind === 'committed') return answerOfCommitted(runner, claim.location, call);
  let reply: TextReply;
  try {
    reply = await claim.run(() => run(runner.pipeline, call));
  } catch (error) {
    // Refused or failed. When the create's transaction committed anyway (its acknowledgement was
    // lost), the key is marked committed and stays; otherwise it is freed and a retry runs again.
    await claim.release().catch((failure: unknown) => scope.log.warn({ err: failure }, 'could not free an Idempotency-Key'));
    throw error;
  }
  // The resource exists: its answer goes to the client even when it cannot be kept for repeats.
  await claim
    .finish({ status: reply.status, headers: reply.headers, body: reply.text })
    .catch((failure: unknown) => scope.log.warn({ err: failure }, 'could not keep the answer of an Idempotency-Key'));
  return reply;
}

/**
 * A repeat of a keyed create whose first answer was never kept, though its resource was created:
 * the resource as its GET route shows it now, with the create's status, when it has such a route
 * and still exists; otherwise a refusal that names what was created, so nothing is made twice.
 */
async function answerOfCommitted(runner: RouteRunner, location: string, create: RouteCall): Promise<TextReply> {
  const found = runner.router.match('GET', location);
  if (found.kind === 'route' && !found.route.spec.operatorsOnly) {
    runner.checkOperation(found.route);
    const variables = collectVariables(found.route, { params: found.params, query: new URLSearchParams(), body: undefined });
    const read: RouteCall = { route: found.route, variables, viewer: create.viewer, scope: create.scope, method: 'GET', path: location };
    const current = await run(runner.pipeline, read).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    });
    if (current)
      return textResponse(current.text, {
        status: create.route.spec.status ?? 200,
        headers: { ...current.headers, location: `/v1${location}`, 'idempotent-replayed': 'true' },
      });
  }
  throw new AppError(
    'CONFLICT',
    `the first request with this Idempotency-Key created /v1${location}, but its answer was lost and cannot be made again; nothing more was created`,
    { reason: 'idempotency_key_answer_lost', location: `/v1${location}` },
  );
}

/** Runs the route's operation with its checked variables and makes the answer. */
async function run(pipeline: GraphQLPipeline, call: RouteCall): Promise<TextReply> {
  const { route, variables, viewer, scope, method, path } = call;
  const initial: GraphQLServerContext = { viewer, requestId: scope.requestId, ownOperation: true };
  const enveloped = pipeline(initial);
  const context = enveloped.contextFactory();
  const result = (await enveloped.execute({
    schema: enveloped.schema,
    document: route.document,
    operationName: ROUTE_OPERATION,
    variableValues: variables,
    contextValue: context instanceof Promise ? await context : context,
  })) as ExecutionResult;
  if (result.errors?.length) {
    const refusal = refusalOf(result.errors[0]!);
    // Not an operator: the route is answered as one that does not exist (routes.ts, operatorsOnly).
    if (route.spec.operatorsOnly && refusal.details.reason === 'operators_only') throw noRoute(method, path);
    throw refusal;
  }
  const value = (result.data as Record<string, unknown>)[route.fieldName] as Record<string, unknown>;
  const status = route.spec.status ?? 200;
  if (route.spec.etag) {
    const revision = value[ETAG_FIELD] as number;
    delete value[ETAG_FIELD];
    const reply = successResponse(value, status);
    reply.headers.etag = etagOf(revision);
    return reply;
  }
  if (route.spec.document) {
    return textResponse(value.body as string, { status, headers: { 'content-type': value.contentType as string } });
  }
  if (route.spec.list) return successResponse(value.data, status, value.pagination as never);
  return successResponse(value, status);
}

function noRoute(method: string, path: string): AppError {
  const shown = `/v1${pathForErrors(path)}`;
  return new AppError('NOT_FOUND', `there is no route ${method} ${shown}`, { method, path: shown });
}

/** What a route answers for the first error of its operation's (masked) result. */
function refusalOf(error: GraphQLError): AppError {
  // A resolver's error: the pipeline masked it, keeping the AppError it stands for, and logged it
  // if it was unexpected (so the answer is a plain copy, which is not logged again).
  const original = error.originalError;
  if (original instanceof AppError) return original.unexpected ? new AppError(original.code, original.message) : original;
  // A value the strict input check let through but the argument's type refused.
  if (error.extensions?.code === 'VALIDATION_ERROR')
    return new AppError('VALIDATION_ERROR', error.message, error.extensions.details as Record<string, unknown>);
  // Anything else (a null for a non-null field) is the service's fault: unexpected, and logged.
  return AppError.from(error);
}
