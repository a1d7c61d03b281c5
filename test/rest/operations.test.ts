import { GraphQLError } from 'graphql';
import { describe, expect } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { getSchema } from '../../src/graphql/schema.js';
import { createGraphQLHandler } from '../../src/graphql/yoga.js';
import { createRestHandler } from '../../src/rest/handler.js';
import { routes } from '../../src/rest/routes.js';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';

/**
 * Every REST route's operation passes the GraphQL pipeline's validation, in development and in
 * production (which adds its own rules). The service validates each one on the route's first
 * request; this check sees them all at once, so a mistake in the route table fails here.
 */
describe("the REST routes' operations", () => {
  function restHandler(t: TestApp, production: boolean, refuseAll = false) {
    const schema = getSchema();
    const graphql = createGraphQLHandler({
      schema,
      services: t.app.services,
      prisma: t.app.database.prisma,
      log: createLogger('silent'),
      production,
    });
    // The same pipeline with a validation that refuses every document.
    const refusing = Object.assign(
      (context?: Parameters<typeof graphql.getEnveloped>[0]) => ({
        ...graphql.getEnveloped(context),
        validate: () => [new GraphQLError('refused by the test')],
      }),
      { _plugins: graphql.getEnveloped._plugins },
    ) as unknown as typeof graphql.getEnveloped;
    return createRestHandler({ schema, pipeline: refuseAll ? refusing : graphql.getEnveloped, bodyLimitBytes: 1024 });
  }

  serviceTest('are all valid for the pipeline, in development and in production', ({ service: t }) => {
    for (const production of [false, true]) {
      const handler = restHandler(t, production);
      expect(handler.router.routes).toHaveLength(routes.length);
      expect(handler.refusals()).toEqual([]);
    }
  });

  serviceTest('are each reported, by method and path, when the pipeline refuses them', ({ service: t }) => {
    const refusals = restHandler(t, false, true).refusals();
    expect(refusals).toHaveLength(routes.length);
    expect(refusals).toContain('GET /workflows/:workflowId: refused by the test');
  });
});
