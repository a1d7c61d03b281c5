import { GraphQLError, NoSchemaIntrospectionCustomRule, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';
import { newContext, releaseContext, type Viewer } from './context.js';
import { toAppError } from './errors.js';
import { createLoaders } from './loaders.js';
import { operationLimitRule } from './limits.js';

export interface GraphQLServerContext {
  viewer: Viewer | null;
  requestId: string;
}

/** The /graphql face: Yoga over the shared schema, with operation limits and error masking. */
export function createGraphQLHandler(options: { schema: GraphQLSchema; services: Services; log: Logger; production: boolean }) {
  const { schema, services, log, production } = options;
  const validationRules: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(operationLimitRule());
      if (production) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
  // The per-request caches Pothos keeps for a context are dropped once the operation is done (see newContext).
  const releasingContext: Plugin = {
    onExecute() {
      return {
        onExecuteDone({ args }) {
          releaseContext(args.contextValue as object);
        },
      };
    },
  };
  return createYoga<GraphQLServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    graphiql: production ? false : { title: 'Workflow service — GraphQL', defaultQuery: '{ me { userId email workflowCount } }' },
    plugins: [validationRules, releasingContext],
    context: ({ viewer, requestId }) => newContext({ viewer, requestId, services, loaders: createLoaders(services, viewer) }),
    maskedErrors: {
      maskError(error, _message) {
        if (error instanceof GraphQLError && !error.originalError) return error;
        const { appError, unexpected } = toAppError(error);
        if (unexpected) log.error({ err: (error as GraphQLError).originalError ?? error }, 'unexpected error in a GraphQL resolver');
        // A database outage is answered 503 with Retry-After as on REST (Yoga takes the status and
        // headers from `http` and leaves it out of the body), so clients and proxies know to retry.
        const http = appError.code === 'SERVICE_UNAVAILABLE' ? { http: { status: appError.status, headers: appError.headers } } : {};
        return new GraphQLError(appError.message, {
          nodes: (error as GraphQLError).nodes,
          path: (error as GraphQLError).path,
          extensions: { code: appError.code, details: appError.details, ...http },
        });
      },
    },
  });
}
