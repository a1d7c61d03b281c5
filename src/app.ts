// First: how zod runs (compiled validators, no reference-cycle support), set before any module
// builds a schema (src/zod-mode.ts).
import './zod-mode.js';
import { setReplyHeader, textResponse, toFetchResponse, type Reply } from './http/text-response.js';
import { createAuthenticator, parseAuthorizationHeader, type Authenticator } from './auth/verify.js';
import { assertCredentialAllows } from './api-keys/service.js';
import { looksLikeApiKey } from './api-keys/secret.js';
import { fileOffsetClock, systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/index.js';
import { AppError } from './errors.js';
import type { CredentialUse, Viewer } from './auth/viewer.js';
import { graphqlErrorReply } from './graphql/errors.js';
import { graphiqlPage } from './graphql/graphiql.js';
import { pathForErrors } from './text.js';
import { getSchema } from './graphql/schema.js';
import { answerPlainPost, asksForJson, plainParams, sendsJson } from './graphql/plain-post.js';
import { boundedAnswer, createGraphQLHandler } from './graphql/yoga.js';
import { assertJsonDepth, readBodyText } from './http/body.js';
import { toFetchRequest, type Incoming } from './http/incoming.js';
import { requestIdOf } from './http/request-id.js';
import type { RequestScope } from './http/scope.js';
import { createLogger, type Logger } from './logger.js';
import { errorResponse, successResponse } from './rest/envelope.js';
import { createRestHandler } from './rest/handler.js';
import { openApiDocument } from './rest/openapi.js';
import { referencePage } from './rest/reference.js';
import { createServices, type Services } from './services.js';
import { createWebhookHandler, WEBHOOK_PATH } from './billing/webhook.js';
import {
  ADDRESS_BUDGET,
  addressKey,
  chargeAfter,
  chargeBefore,
  chargedBefore,
  clientAddress,
  isNavigation,
  requestCharge,
} from './limits/http.js';
import { rateBudget, type RateBudget } from './limits/plans.js';
import { createRateLimiter, limitInto } from './limits/rate-limit.js';
import { manifestSchemaDocument } from './manifest/schema.js';
import { createMcpEndpoint, MCP_PATH } from './mcp/endpoint.js';
import { createInstallRoutes, INSTALL_PREFIX } from './install/http.js';
import { countingRefusals, createMetricsEndpoint, METRICS_PATH } from './metrics/http.js';
import { createMetricsRegistry } from './metrics/registry.js';
import { authorizationServerRoute, boundedRoute } from './metrics/labels.js';
import { findDashboardBuild, loadDashboardAssets } from './dashboard/static.js';
import { createBrowserSignIn } from './oauth/sign-in.js';
import { createOAuthStore } from './oauth-store/index.js';
import { createAuthorizationServer, looksLikeAccessToken } from './oauth/authorization-server.js';
import { PRM_PATH } from './oauth/resource.js';

/** Paths of the API and the protocols: never answered with the dashboard's pages. */
const API_PATH = /^\/(?:v1|graphql|oauth|\.well-known|healthz|readyz|metrics)(?:\/|$)/;

/** Where the manifest JSON Schema is served, relative to the service root (spec 2.8, 9). */
const MANIFEST_SCHEMA_PATH = '/v1/schemas/manifest/v1.0';

/** The address manifests put in `$schema`: under {base_url}, ending in a v1.0 segment. */
function manifestSchemaUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl}/schemas/manifest/v1.0`;
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** An already-open database (tests); otherwise one is opened from the config. */
  database?: Database;
  /** The dashboard's built files (tests); otherwise dist/web when it has been built. */
  dashboardDir?: string | null;
  /**
   * Whether plain JSON POSTs to /graphql skip Yoga's HTTP layer (src/graphql/plain-post.ts;
   * default true). false sends every /graphql request through Yoga: the test that compares both.
   */
  plainGraphQLPosts?: boolean;
}

/**
 * The reply with the request id and the rate-limit headers added. Every reply the service builds
 * has mutable headers, so they are set in place; a response with immutable headers (one that
 * came from fetch()) is copied instead.
 */
function withHeaders(response: Reply, requestId: string, extra: Record<string, string>): Reply {
  try {
    setReplyHeader(response, 'x-request-id', requestId);
    for (const k in extra) setReplyHeader(response, k, extra[k]!);
    return response;
  } catch {
    const fetched = response as Response;
    const headers = new Headers(fetched.headers);
    headers.set('x-request-id', requestId);
    for (const k in extra) headers.set(k, extra[k]!);
    return new Response(fetched.body, { status: fetched.status, statusText: fetched.statusText, headers });
  }
}

const API_USE: CredentialUse = { face: 'api' };

/** What the HTTP server knows about a request beyond the request itself. */
export interface ConnectionInfo {
  /** The peer address of the socket. */
  remoteAddress?: string;
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
  const clock = options.clock ?? (config.testClockOffsetFile ? fileOffsetClock(config.testClockOffsetFile) : systemClock);
  const authenticator: Authenticator = await createAuthenticator({
    ...config.oidc,
    devAuth: config.devAuth,
    dataDir: config.dataDir,
    production: config.production,
    ownSignIn: config.mail !== null || config.github !== null,
  });
  const db =
    options.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      queryTimeoutMs: config.queryTimeoutMs,
    }));
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
  const serveMetrics = createMetricsEndpoint({
    registry: metrics,
    gauges: () => ({ pool: db.poolStats(), database: db.kind }),
    token: config.metricsToken,
    production: config.production,
  });
  const billingWebhook = createWebhookHandler({ config, log, billing: services.billing });
  const schema = getSchema();
  const graphql = createGraphQLHandler({ schema, services, prisma: db.prisma, log, production: config.production });
  const rest = createRestHandler({
    schema,
    pipeline: graphql.getEnveloped,
    bodyLimitBytes: config.bodyLimitBytes,
    isOperator: services.moderation.isOperator,
  });
  const mcp = createMcpEndpoint({ services, config, log });
  const installRoutes = createInstallRoutes({ services, mcp, onArtifactLookup: (outcome) => metrics.installArtifactLookup(outcome) });
  const manifestSchemaJson = JSON.stringify(manifestSchemaDocument(manifestSchemaUrl(config.publicBaseUrl)), null, 2);
  const openApi = JSON.stringify(openApiDocument(rest.router, schema, config.publicBaseUrl));
  const oauthStore = createOAuthStore({ db, clock });
  const browser = createBrowserSignIn({ config, store: oauthStore, clock, services, log });
  const authorizationServer = await createAuthorizationServer({ config, store: oauthStore, browser, limiter, log });
  const dashboard = loadDashboardAssets(options.dashboardDir !== undefined ? options.dashboardDir : findDashboardBuild());

  const plainPosts = options.plainGraphQLPosts ?? true;
  // The access log line is built only when it will be written.
  const logsRequests = log.isLevelEnabled('info');

  type Scope = RequestScope & {
    identify: () => Promise<Viewer>;
    /** Set when the viewer comes from the dashboard's session cookie: charged to the session budget. */
    session: boolean;
  };

  function newScope(request: Incoming, requestId: string, connection: ConnectionInfo): Scope {
    let viewer: Promise<Viewer> | undefined;
    let charged: { key: string; budget: RateBudget } | undefined;
    const scope: Scope = {
      async identify() {
        const header = request.headers.get('authorization');
        // A personal API key is told from an ID token by its prefix, an OAuth access token by its
        // shape (opaque, no dots); all arrive as Bearer.
        const token = parseAuthorizationHeader(header);
        if (looksLikeApiKey(token)) return services.apiKeys.authenticateApiKey(token);
        if (looksLikeAccessToken(token)) return authorizationServer.authenticateAccessToken(token);
        return services.users.resolveViewer(await authenticator.verifyAuthorization(header));
      },
      session: false,
      requestId,
      services,
      log,
      route: 'unmatched',
      userId: null,
      headers: {},
      clientIp: clientAddress(request, connection.remoteAddress, config.trustProxyHops),
      authenticate(use = API_USE) {
        viewer ??= (async () => {
          const v = await scope.identify();
          scope.userId = v.userId;
          // The dashboard (session cookie) and the user's tokens and API keys have separate budgets,
          // so neither can use up the other's (docs/plans.md, "The dashboard's budget").
          const plan = await services.billing.planOf(v.userId);
          charged = scope.session
            ? { key: `session:${v.userId}`, budget: rateBudget(plan, 'session') }
            : { key: `user:${v.userId}`, budget: rateBudget(plan, 'api') };
          await limitInto(scope.headers, limiter, charged.key, charged.budget);
          return v;
        })();
        return viewer.then((v) => {
          assertCredentialAllows(v, use);
          return v;
        });
      },
      async chargeMore(points) {
        if (!charged) throw new Error('chargeMore before authenticate');
        if (points > 0) await limitInto(scope.headers, limiter, charged.key, charged.budget, points);
      },
      async limitAnonymous(deploymentId, ownerId) {
        const budget = rateBudget(await services.billing.planOf(ownerId), 'api');
        await limitInto(scope.headers, limiter, `anon:${deploymentId}:${scope.clientIp}`, budget);
      },
    };
    return scope;
  }

  async function route(request: Incoming, url: URL, scope: Scope): Promise<Reply> {
    const path = url.pathname;
    if (path === '/healthz') {
      scope.route = 'GET /healthz';
      // Liveness: fails only when this instance cannot recover by itself (docs/operations.md).
      const health = db.health();
      if (!health.ok) throw new AppError('SERVICE_UNAVAILABLE', health.reason, { check: 'database_pool' }, { 'Retry-After': '10' });
      return successResponse({ status: 'ok' });
    }
    if (path === '/readyz') {
      scope.route = 'GET /readyz';
      if (draining) throw new AppError('SERVICE_UNAVAILABLE', 'the service is shutting down', { draining: true }, { 'Retry-After': '2' });
      const health = db.health();
      if (!health.ok) throw new AppError('SERVICE_UNAVAILABLE', health.reason, { database: db.kind }, { 'Retry-After': '10' });
      try {
        await db.ping(2000);
        return successResponse({ status: 'ready', database: db.kind });
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'the database does not answer', { database: db.kind }, { 'Retry-After': '2' });
      }
    }
    if (path === METRICS_PATH) {
      scope.route = `${request.method} ${METRICS_PATH}`;
      return serveMetrics(request, () => limitInto(scope.headers, limiter, addressKey(scope.clientIp), ADDRESS_BUDGET));
    }
    if (path === '/graphql') return handleGraphQL(request, scope);
    if (path.startsWith('/oauth') || path.startsWith('/.well-known/')) {
      const answer = await authorizationServer.handle(request, url, scope);
      if (answer) {
        scope.route = `${request.method} ${authorizationServerRoute(path, PRM_PATH.test(path))}`;
        return answer;
      }
    }
    if (path.startsWith('/sign-')) {
      const signIn = await browser.handle(request, url, scope.clientIp);
      if (signIn) {
        scope.route = `${request.method} ${path}`;
        return signIn;
      }
    }
    if (path === WEBHOOK_PATH) {
      scope.route = `POST ${WEBHOOK_PATH}`;
      return billingWebhook(request);
    }
    if (path === '/v1/openapi.json') {
      scope.route = 'GET /v1/openapi.json';
      return textResponse(openApi, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    }
    if (path === MANIFEST_SCHEMA_PATH) {
      scope.route = `GET ${MANIFEST_SCHEMA_PATH}`;
      return textResponse(manifestSchemaJson, {
        headers: { 'content-type': 'application/schema+json; charset=utf-8', 'cache-control': 'public, max-age=3600' },
      });
    }
    if (path === '/v1/reference' || path === '/v1/docs') {
      scope.route = 'GET /v1/reference';
      return textResponse(referencePage('/v1/openapi.json'), { headers: { 'content-type': 'text/html; charset=utf-8' } });
    }
    const mcpMatch = MCP_PATH.exec(path);
    if (mcpMatch) return mcp.handle(request, url, mcpMatch[1]!, scope);
    if (path.startsWith(INSTALL_PREFIX)) return installRoutes.handle(request, url, scope);
    if (path === '/v1' || path.startsWith('/v1/')) return rest.handle(request, url, path.slice(3) || '/', scope);
    // A browser's page load of an unknown path outside the API gets the dashboard's own "page not
    // found" (the page shell answered 404, so its router shows it); a program gets the JSON 404.
    if (isNavigation(request) && !API_PATH.test(path)) {
      scope.route = `${request.method} /(dashboard)`;
      return dashboard.notFound(request);
    }
    const shown = pathForErrors(path);
    throw new AppError('NOT_FOUND', `there is no route ${request.method} ${shown}`, { method: request.method, path: shown });
  }

  /**
   * The dashboard's requests carry the browser session cookie instead of a token: accepted only from
   * the service's own pages (a cross-site request is refused before anything runs).
   */
  function useBrowserSession(request: Incoming, scope: Scope): void {
    if (request.headers.has('authorization') || !browser.hasSessionCookie(request)) return;
    browser.assertSameOrigin(request);
    scope.session = true;
    scope.identify = async () => {
      const found = await browser.lookUp(request);
      if (!found)
        throw new AppError('UNAUTHORIZED', 'your session has ended (7 days without activity, or you signed out): sign in again', {
          reason: 'session',
        });
      if (found.setCookie) scope.headers['set-cookie'] = found.setCookie;
      return found.viewer;
    };
  }

  async function handleGraphQL(request: Incoming, scope: Scope): Promise<Reply> {
    scope.route = `${request.method} /graphql`;
    const wantsPage = request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
    if (wantsPage && !config.production) return graphiqlPage(request.headers.get('accept-encoding'), false);
    let viewer: Viewer;
    try {
      useBrowserSession(request, scope);
      viewer = await scope.authenticate();
    } catch (error) {
      return graphqlErrorReply(AppError.from(error));
    }
    let forwarded: Request;
    if (request.method === 'POST') {
      // Read the body here so the size and nesting limits hold for GraphQL as they do for REST.
      let body: string;
      try {
        body = await readBodyText(request, config.bodyLimitBytes);
        assertJsonDepth(body);
      } catch (error) {
        // A body that cannot be read (too large, not UTF-8, too deep) is answered as GraphQL answers errors.
        return graphqlErrorReply(AppError.from(error));
      }
      forwarded = toFetchRequest(request, body, graphql.fetchAPI);
      const params =
        plainPosts && sendsJson(request.headers.get('content-type')) && asksForJson(request.headers.get('accept'))
          ? plainParams(body)
          : null;
      if (params) {
        const context = { viewer, requestId: scope.requestId, chargeMore: scope.chargeMore, request: forwarded };
        let answer: Response | null;
        try {
          answer = await answerPlainPost(graphql.getEnveloped, graphql.fetchAPI, params, context);
        } catch (error) {
          // Thrown out of execution rather than answered in `errors`: a fault of the service.
          const failure = AppError.from(error);
          if (failure.unexpected) log.error({ err: error, requestId: scope.requestId }, 'unexpected error executing a GraphQL operation');
          return graphqlErrorReply(failure);
        }
        if (answer) return boundedAnswer(answer);
      }
    } else {
      forwarded = toFetchRequest(request, undefined, graphql.fetchAPI);
    }
    return boundedAnswer(await graphql.fetch(forwarded, { viewer, requestId: scope.requestId, chargeMore: scope.chargeMore }));
  }

  async function handle(request: Incoming, connection: ConnectionInfo = {}): Promise<Reply> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const scope = newScope(request, requestId, connection);
    const url = new URL(request.url);
    const path = url.pathname;
    let response: Reply;
    // The dashboard's files and page shell first: never rate-limited (a browser loading the
    // dashboard must not use up anyone's budget, or see a blank page because of it).
    const page = dashboard.serve(request, path);
    if (page) {
      scope.route = `${request.method} /(dashboard)`;
      response = page;
    } else {
      const charge = requestCharge(request, path, {
        isToolEndpoint: MCP_PATH.test(path),
        hasSessionCookie: browser.hasSessionCookie(request),
        hasKeyInPath: path.startsWith(INSTALL_PREFIX) && path.split('/').some(looksLikeApiKey),
      });
      // Charge before work: a request anyone can send without a credential is refused before its
      // handler runs, so a refused request has no effect (docs/plans.md, "Rate limits").
      const refused = chargedBefore(charge) ? await chargeBefore(limiter, scope, request, path, charge) : null;
      if (refused) {
        response = refused;
      } else {
        try {
          response = await route(request, url, scope);
        } catch (error) {
          const appError = AppError.from(error);
          if (appError.unexpected) log.error({ err: error, requestId, route: scope.route }, 'unexpected error');
          response = errorResponse(appError);
        }
        response = await chargeAfter(limiter, scope, charge, request, path, response);
      }
    }
    const out = withHeaders(response, requestId, scope.headers);
    const elapsedMs = performance.now() - started;
    metrics.observeRequest(boundedRoute(scope.route, request.method), out.status, elapsedMs / 1000);
    if (logsRequests)
      log.info(
        {
          requestId,
          method: request.method,
          route: scope.route,
          status: out.status,
          durationMs: Math.round(elapsedMs * 100) / 100,
          userId: scope.userId,
        },
        'request',
      );
    return out;
  }

  return {
    handle,
    fetch: async (request, connection) => toFetchResponse(await handle(request, connection)),
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
