// First: how zod runs (compiled validators, no reference-cycle support), set before any module
// builds a schema (src/runtime/zod-mode.ts).
import './runtime/zod-mode.js';
import { createAuthenticator } from './auth/verify.js';
import { fileOffsetClock, systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { describeDbError } from './db/errors.js';
import { openDatabase, type Database } from './db/index.js';
import { createFaces, type FaceOptions } from './edge/faces.js';
import { answerRequest, type Edge } from './edge/pipeline.js';
import { countingRefusals } from './metrics/http.js';
import type { ConnectionInfo } from './edge/request-scope.js';
import { getSchema } from './graphql/schema.js';
import { createGraphQLHandler } from './graphql/yoga.js';
import type { Incoming } from './http/incoming.js';
import { toFetchResponse, type Reply } from './http/text-response.js';
import { createRateLimiter } from './limits/rate-limit.js';
import { createLogger, type Logger } from './logger.js';
import { createMetricsRegistry } from './metrics/registry.js';
import { createAuthorizationServer } from './oauth/authorization-server.js';
import { createBrowserSignIn } from './oauth/sign-in.js';
import { createOAuthStore } from './oauth-store/index.js';
import { createServices, type Services } from './services.js';
import { registerErrorTranslator } from './errors.js';

export type { ConnectionInfo } from './edge/request-scope.js';

export interface AppOptions extends FaceOptions {
  clock?: Clock;
  logger?: Logger;
  /** An already-open database (tests); otherwise one is opened from the config. */
  database?: Database;
}

export interface App {
  /** Answers a request; what the HTTP server calls. */
  handle(request: Incoming, connection?: ConnectionInfo): Promise<Reply>;
  /** The same with Fetch API objects on both sides (tests, scripts). */
  fetch(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /** Shutting down: /readyz answers 503 from now on, so balancers stop sending traffic. */
  startDraining(): void;
  /** Counts a promise rejection nobody handled (process_unhandled_rejections_total in /metrics). */
  recordUnhandledRejection(): void;
  close(): Promise<void>;
  services: Services;
  /** The database the services run on (tests and scripts that write rows directly). */
  database: Database;
  config: Config;
}

/**
 * Builds the service: one fetch handler for every face (REST under /v1, GraphQL at /graphql,
 * health checks) over one set of services.
 */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = options.logger ?? createLogger(config.logLevel);
  // The database's failures in the one error table (src/errors.ts): 503 for unavailability, and so on.
  registerErrorTranslator(describeDbError);
  const clock = options.clock ?? (config.testClockOffsetFile ? fileOffsetClock(config.testClockOffsetFile) : systemClock);
  const { devAuth, dataDir, production } = config;
  const ownSignIn = config.mail !== null || config.github !== null;
  const authenticator = await createAuthenticator({ ...config.oidc, devAuth, dataDir, production, ownSignIn });
  const { databaseUrl, databasePoolSize: poolSize, queryTimeoutMs } = config;
  const db = options.database ?? (await openDatabase({ databaseUrl, dataDir, poolSize, queryTimeoutMs }));
  const services = createServices({ db, config, clock });
  // Versions recorded before content digests existed get theirs before anything is served.
  await services.workflows.fillMissingDigests();
  // Display names written before names had keys get them, or lose a name that breaks a rule of names.
  await services.users.settleNameKeys();
  const metrics = createMetricsRegistry();
  let draining = false;
  const limiter = countingRefusals(
    await createRateLimiter({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, mode: config.rateLimitMode, log }),
    metrics,
  );
  const graphql = createGraphQLHandler({ schema: getSchema(), services, prisma: db.prisma, log, production: config.production });
  const oauthStore = createOAuthStore({ db, clock });
  const browser = createBrowserSignIn({ config, store: oauthStore, clock, services, log });
  const authorizationServer = await createAuthorizationServer({
    config,
    store: oauthStore,
    browser,
    limiter,
    log,
    record: (event) => services.teams.record(event),
  });
  const edge: Edge = {
    faces: createFaces({ config, log, services, db, limiter, metrics, graphql, browser, authorizationServer }, options, () => draining),
    scopes: { services, log, config, limiter, authenticator, browser, accessTokens: authorizationServer },
    metrics,
    logsRequests: log.isLevelEnabled('info'),
  };

  return {
    handle: (request, connection) => answerRequest(edge, request, connection),
    fetch: async (request, connection) => toFetchResponse(await answerRequest(edge, request, connection)),
    services,
    database: db,
    config,
    startDraining() {
      draining = true;
    },
    recordUnhandledRejection() {
      metrics.unhandledRejection();
    },
    async close() {
      await graphql.dispose?.();
      authenticator.close?.();
      authorizationServer.close();
      await limiter.close();
      if (!options.database) await db.close();
    },
  };
}
