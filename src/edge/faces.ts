import { createWebhookHandler } from '../billing/webhook.js';
import { cacheStats } from '../cache/bounded.js';
import type { Config } from '../config.js';
import { findDashboardBuild, loadDashboardAssets } from '../dashboard/static.js';
import { getSchema } from '../graphql/schema.js';
import type { GraphQLHandler } from '../graphql/yoga.js';
import { createInstallRoutes } from '../install/http.js';
import type { RateLimiter } from '../limits/rate-limit.js';
import type { Logger } from '../logger.js';
import { manifestSchemaDocument } from '../manifest/schema.js';
import { createMcpEndpoint } from '../mcp/endpoint.js';
import { createMetricsEndpoint, METRICS_PATH } from '../metrics/http.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import type { AuthorizationServer } from '../oauth/authorization-server.js';
import type { BrowserSignIn } from '../oauth/sign-in.js';
import { createRestHandler } from '../rest/handler.js';
import { openApiDocument } from '../rest/openapi.js';
import type { Services } from '../services.js';
import { createInvitationPage } from '../teams/http.js';
import type { DatabaseProbe, Faces } from './router.js';

/** What the faces are built from: the services and the pieces the composition root made. */
export interface FaceParts {
  config: Config;
  log: Logger;
  services: Services;
  /** The database as the probes and /metrics see it. */
  db: DatabaseProbe & { poolStats(): Parameters<MetricsRegistry['render']>[0]['pool'] };
  limiter: RateLimiter;
  metrics: MetricsRegistry;
  graphql: GraphQLHandler;
  browser: BrowserSignIn;
  authorizationServer: AuthorizationServer;
}

/** The composition's options for the faces (src/app.ts, AppOptions). */
export interface FaceOptions {
  /** The dashboard's built files; undefined: dist/web when it has been built. */
  dashboardDir?: string | null;
  /** Whether plain JSON POSTs to /graphql skip Yoga's HTTP layer (default true; src/graphql/plain-post.ts). */
  plainGraphQLPosts?: boolean;
}

/** Builds every face the route table hands requests to (src/edge/router.ts). */
export function createFaces(parts: FaceParts, options: FaceOptions, isDraining: () => boolean): Faces {
  const { config, log, services, db, metrics } = parts;
  const schema = getSchema();
  const rest = createRestHandler({
    schema,
    pipeline: parts.graphql.getEnveloped,
    bodyLimitBytes: config.bodyLimitBytes,
    isOperator: services.moderation.isOperator,
  });
  const mcp = createMcpEndpoint({ services, config, log });
  return {
    db,
    limiter: parts.limiter,
    isDraining,
    metrics: createMetricsEndpoint({
      registry: metrics,
      gauges: () => ({ pool: db.poolStats(), database: db.kind, caches: cacheStats() }),
      token: config.metricsToken,
      production: config.production,
    }),
    metricsPath: METRICS_PATH,
    graphql: { config, log, handler: parts.graphql, plainPosts: options.plainGraphQLPosts ?? true },
    authorizationServer: parts.authorizationServer,
    browser: parts.browser,
    billingWebhook: createWebhookHandler({ config, log, billing: services.billing }),
    openApiJson: JSON.stringify(openApiDocument(rest.router, schema, config.publicBaseUrl)),
    // The address manifests put in `$schema`: under {base_url}, ending in a v1.0 segment.
    manifestSchemaJson: JSON.stringify(manifestSchemaDocument(`${config.publicBaseUrl}/schemas/manifest/v1.0`), null, 2),
    mcp,
    install: createInstallRoutes({ services, onArtifactLookup: (outcome) => metrics.installArtifactLookup(outcome) }),
    rest,
    invitations: createInvitationPage({ services, browser: parts.browser }),
    dashboard: loadDashboardAssets(options.dashboardDir !== undefined ? options.dashboardDir : findDashboardBuild()),
  };
}
