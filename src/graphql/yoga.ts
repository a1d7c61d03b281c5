import { GraphQLError, MaxIntrospectionDepthRule, NoSchemaIntrospectionCustomRule, type GraphQLSchema } from 'graphql';
import { createYoga, handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { PrismaClient } from '@pothos/plugin-prisma';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';
import { AppError } from '../errors.js';
import { TextReply, type Reply } from '../http/text-response.js';
import { contextFields, releaseContext, type GraphQLContext, type Viewer } from './context.js';
import { graphqlErrorReply, toGraphQLError } from './errors.js';
import { useJit } from './jit.js';
import { costRefusal, measureOperation, operationLimitRule } from './limits.js';

export interface GraphQLServerContext {
  viewer: Viewer | null;
  requestId: string;
  /** Charges the request's extra rate-limit units (one per root field beyond the first). */
  chargeMore?: (points: number) => Promise<void>;
  /**
   * Set when the operation is one of the service's own (a REST route's) rather than written by
   * the client: its cost is bounded by the checks of its arguments, so it is not measured.
   */
  ownOperation?: boolean;
}

/**
 * The most one GraphQL answer may hold, in bytes. The cost bound keeps real operations far below
 * it (at most about 10 MiB of manifests); this is the backstop that keeps any answer from growing
 * without bound.
 */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Yoga's answer as a reply of the service, refused when it is over MAX_ANSWER_BYTES. */
export async function boundedAnswer(response: Response): Promise<Reply> {
  const text = await response.text();
  const bytes = text.length * 3 > MAX_ANSWER_BYTES ? Buffer.byteLength(text, 'utf8') : text.length;
  if (bytes > MAX_ANSWER_BYTES) {
    return graphqlErrorReply(
      new AppError(
        'VALIDATION_ERROR',
        `the answer would be ${bytes} bytes; at most ${MAX_ANSWER_BYTES} are sent: ask for fewer fields or smaller pages`,
        { limit: 'answerSize', bytes, max: MAX_ANSWER_BYTES },
      ),
    );
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') headers[name] = value;
  });
  return new TextReply(text, response.status, headers);
}

/** graphql-js's "Did you mean …?" hints name fields, arguments and types: in production they would reveal the schema that introspection hides. */
const SUGGESTION = / Did you mean .*\?$/s;

function isInputRefusal(error: GraphQLError): boolean {
  let inner: unknown = error.originalError;
  while (inner instanceof GraphQLError && inner.originalError) inner = inner.originalError;
  return inner instanceof GraphQLError;
}

function withoutSuggestion(error: GraphQLError): GraphQLError {
  if (!SUGGESTION.test(error.message)) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, ''), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: error.extensions,
  });
}

/** An error the caller's input caused, as a VALIDATION_ERROR (its text names what was refused). */
function inputRefusal(error: GraphQLError): GraphQLError {
  return toGraphQLError(
    { code: 'VALIDATION_ERROR', message: error.message, details: {} },
    { nodes: error.nodes, path: error.path, withHttp: false },
  );
}

/** After an execution (see `execution` in createGraphQLHandler): the context released, a refused input told as such. */
const executionDone = (payload: Parameters<typeof handleStreamOrSingleExecutionResult>[0]) => {
  releaseContext(payload.args.contextValue as object);
  return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
    if ('data' in result || !result.errors?.length) return;
    setResult({ ...result, errors: result.errors.map((error) => (error.extensions?.code ? error : inputRefusal(error))) });
  });
};

/**
 * The GraphQL pipeline: Yoga over the shared schema, with operation limits, graphql-jit, context
 * release and error masking. It serves /graphql, and the REST face runs its routes' operations
 * through the same enveloped pipeline (`getEnveloped`, src/rest/handler.ts).
 */
export function createGraphQLHandler(options: {
  schema: GraphQLSchema;
  services: Services;
  /** plugin-prisma's client (see GraphQLContext.prisma). */
  prisma: PrismaClient;
  log: Logger;
  production: boolean;
}) {
  const { schema, services, prisma, log, production } = options;
  const validationRules: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(operationLimitRule());
      addValidationRule(MaxIntrospectionDepthRule);
      if (!production) return;
      addValidationRule(NoSchemaIntrospectionCustomRule);
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map((e) => (e instanceof GraphQLError ? withoutSuggestion(e) : e)));
      };
    },
  };
  // One plugin for the execution stage (every hook a plugin adds is a step of the pipeline on every
  // execution, each REST route's included), doing three things:
  // - The cost depends on the variables, so it is measured when the operation is about to run,
  //   still before any resolver; so is the rate-limit charge of a request with several root
  //   fields. Synchronous unless there is something to charge, so most executions wait for
  //   nothing here.
  // - An execution answered without `data` was refused before it began: variable values that do
  //   not fit their types, or an operation the document does not have. That is the caller's
  //   mistake whichever executor found it (graphql-jit's refusals carry no `originalError` to
  //   tell by).
  // - The per-request caches Pothos keeps for a context are dropped once the operation is done
  //   (see contextFields), refused operations included.
  const afterExecution = { onExecuteDone: executionDone };
  const execution: Plugin = {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as Partial<GraphQLServerContext>;
      if (context.ownOperation) return afterExecution;
      const measure = measureOperation(args.schema, args.document, args.operationName, args.variableValues);
      const refusal = costRefusal(measure);
      if (refusal) {
        setResultAndStopExecution({ errors: [refusal] });
        return afterExecution;
      }
      if (!context.chargeMore || measure.rootFields <= 1) return afterExecution;
      return context.chargeMore(measure.rootFields - 1).then(
        () => afterExecution,
        (error: unknown) => {
          if (!(error instanceof AppError)) throw error;
          setResultAndStopExecution({ errors: [toGraphQLError(error)] });
          return afterExecution;
        },
      );
    },
  };
  // The context of an execution is the request's own object (what the /graphql handler or a REST
  // route passes in), extended with the services and the per-request loaders and caches when the
  // pipeline is made for it. Made here rather than with Yoga's `context` option, which would add a
  // context-building step: that step runs through envelop's promise helpers, short-lived objects
  // on every request for nothing (docs/decisions.md, "One execution pipeline for REST and GraphQL").
  const requestContext: Plugin<Partial<GraphQLServerContext & GraphQLContext>> = {
    onEnveloped({ context, extendContext }) {
      if (context) extendContext(contextFields(services, prisma, context.viewer ?? null));
    },
  };
  const jit = useJit({
    onRefused: (errors) =>
      log.warn({ errors: errors.map((e) => e.message) }, 'graphql-jit refused an operation; it is answered with the refusal'),
  });
  return createYoga<GraphQLServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // The dashboard is same-origin: no other site's page may read /graphql's answers. (Yoga's
    // default would reflect any Origin with credentials allowed.)
    cors: false,
    landingPage: false,
    logging: false,
    // GraphiQL is served by the service itself (graphiql.ts: compressed once, with its own CSP).
    graphiql: false,
    plugins: [requestContext, validationRules, execution, jit],
    maskedErrors: {
      maskError(error, _message) {
        if (error instanceof GraphQLError && !error.originalError) return production ? withoutSuggestion(error) : error;
        // graphql-js's own refusal of an input (a variable of the wrong type, an unknown enum
        // value) wraps the GraphQLError its coercion threw: the caller's mistake, not ours.
        if (error instanceof GraphQLError && isInputRefusal(error)) {
          const refused = inputRefusal(error);
          return production ? withoutSuggestion(refused) : refused;
        }
        const appError = AppError.from(error);
        if (appError.unexpected)
          log.error({ err: (error as GraphQLError).originalError ?? error }, 'unexpected error in a GraphQL resolver');
        // A database outage is answered 503 with Retry-After as on REST (Yoga takes the status and
        // headers from `http` and leaves it out of the body), so clients and proxies know to retry.
        // The AppError stays reachable (`originalError`, never sent) so the REST face answers with
        // exactly it, headers included.
        return toGraphQLError(appError, {
          nodes: (error as GraphQLError).nodes,
          path: (error as GraphQLError).path,
          withHttp: appError.code === 'SERVICE_UNAVAILABLE',
          originalError: appError,
        });
      },
    },
  });
}

export type GraphQLHandler = ReturnType<typeof createGraphQLHandler>;

/** The pipeline of one request: the context factory, validation and execution of GraphQLHandler. */
export type GraphQLPipeline = GraphQLHandler['getEnveloped'];
