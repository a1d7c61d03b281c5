import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { getSchema } from '../../src/graphql/schema.js';
import { createGraphQLHandler } from '../../src/graphql/yoga.js';
import { createRestHandler } from '../../src/rest/handler.js';
import { routes } from '../../src/rest/routes.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/**
 * Every REST route's operation passes the GraphQL pipeline's validation, in development and in
 * production (which adds its own rules). The service validates each one on the route's first
 * request; this check sees them all at once, so a mistake in the route table fails here.
 */
describe("the REST routes' operations", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  function restHandler(production: boolean, refuseAll = false) {
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

  it('are all valid for the pipeline, in development and in production', () => {
    for (const production of [false, true]) {
      const handler = restHandler(production);
      expect(handler.router.routes).toHaveLength(routes.length);
      expect(handler.refusals()).toEqual([]);
    }
  });

  it('are each reported, by method and path, when the pipeline refuses them', () => {
    const refusals = restHandler(false, true).refusals();
    expect(refusals).toHaveLength(routes.length);
    expect(refusals).toContain('GET /workflows/:workflowId: refused by the test');
  });
});
