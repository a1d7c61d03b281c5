import { EnvReader, type Env } from './config-env.js';
import { readOAuth, readSignIn, type GithubSettings, type OidcSettings } from './config-sign-in.js';

/**
 * The only reader of process.env. Every variable is parsed and checked once; all
 * problems are reported together so an operator fixes them in one go.
 */
export interface StripePrices {
  pro_monthly?: string;
  pro_annual?: string;
  team_monthly?: string;
  team_annual?: string;
}

export interface Config {
  port: number;
  host: string;
  /** The spec's {base_url}: ends in /v1, no trailing slash. */
  publicBaseUrl: string;
  databaseUrl: string | null;
  /** PostgreSQL connections of this instance's pool (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** How long a PostgreSQL query may go unanswered before its connection is given up (QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
  /** How long requests in flight get to finish after SIGTERM before they are cut (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /**
   * Seconds of quiet after a busy period before the instance gives its grown memory back with one
   * full collection (IDLE_COLLECTION_SECONDS, whole tens; 0: never; src/runtime/idle-collection.ts).
   */
  idleCollectionSeconds: number;
  /**
   * From how many workflows (the table's estimate) search uses the plans that pay off only at scale
   * (MARKETPLACE_LARGE_FROM; 0: always; src/marketplace/catalogue-size.ts).
   */
  marketplaceLargeFrom: number;
  dataDir: string;
  redisUrl: string | null;
  /** Prefix of every Redis key the service writes, so several environments can share one Redis. */
  redisKeyPrefix: string;
  /** `enforce` refuses requests over the plan's rate limit; `report` only counts and sends the headers. */
  rateLimitMode: 'enforce' | 'report';
  /** Proxies in front of the service that append to X-Forwarded-For (0: use the socket address). */
  trustProxyHops: number;
  production: boolean;
  oidc: OidcSettings;
  /**
   * The service as a relying party of the OpenID provider, for browser sign-in (OIDC_CLIENT_ID,
   * OIDC_CLIENT_SECRET); null when OIDC_ISSUER or OIDC_CLIENT_ID is unset.
   */
  oidcClient: { clientId: string; clientSecret: string | null; name: string | null } | null;
  devAuth: boolean;
  /**
   * E-mail sign-in by one-time link (SMTP_URL as nodemailer takes it; MAIL_FROM, default
   * `Workflow service <no-reply@` and PUBLIC_BASE_URL's host `>`); null when SMTP_URL is unset.
   */
  mail: { smtpUrl: string; from: string } | null;
  /**
   * GitHub sign-in (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET of a GitHub OAuth App; GITHUB_URL, default
   * https://github.com, or a GitHub Enterprise Server's address); null when unset. `apiUrl` is
   * https://api.github.com for github.com, `${GITHUB_URL}/api/v3` otherwise.
   */
  github: GithubSettings | null;
  stripe: { secretKey?: string; webhookSecret?: string; apiUrl?: string; prices: StripePrices };
  logLevel: string;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Bearer token that protects GET /metrics; unset leaves it open (it is bound to HOST). */
  metricsToken: string | null;
  /**
   * HMAC key material for the tool endpoint's Mcp-Session-Id (MCP_SESSION_SECRET). Unset: a key
   * kept under DATA_DIR, shared by the instances that share DATA_DIR; required in production.
   */
  mcpSessionSecret: string | null;
  /**
   * Browser origins allowed on the tool endpoint besides PUBLIC_BASE_URL's and loopback ones
   * (MCP_ALLOWED_ORIGINS, comma-separated `scheme://host[:port]`, or `*` for any).
   */
  mcpAllowedOrigins: string[];
  /**
   * The OAuth authorization server's private signing keys (OAUTH_JWKS, a JSON Web Key Set with the
   * private parts; its first key also derives the cookie keys). Unset: a key kept under DATA_DIR;
   * required in production.
   */
  oauthJwks: { keys: Record<string, unknown>[] } | null;
  /**
   * Test-only (OAUTH_CLIENT_METADATA_LOOPBACK=on, refused in production): client ID metadata
   * documents may be fetched from loopback addresses over http.
   */
  oauthClientMetadataLoopback: boolean;
  /**
   * OAUTH_CLIENT_METADATA_DIR: a directory of client ID metadata documents (`*.json`) that add to or
   * replace the pinned copies shipped for known IDE clients (docs/mcp.md, "Known IDE clients").
   */
  oauthClientMetadataDir: string | null;
  /**
   * OAUTH_CLIENT_METADATA_FETCH=off: the service never fetches client ID metadata documents (no
   * egress): known IDE clients use their pinned copies, other document clients are refused.
   */
  oauthClientMetadataFetch: boolean;
  /**
   * Test-only (TEST_CLOCK_OFFSET_FILE, refused in production): a file holding milliseconds by which
   * the service's clock runs ahead, read on every reading of the clock (src/clock.ts).
   */
  testClockOffsetFile: string | null;
  /**
   * The operators, who handle marketplace reports (ADMIN_EMAILS, comma-separated e-mail addresses,
   * compared without case with the address the identity provider asserts; docs/marketplace.md,
   * "Reports and takedown"). Empty: nobody is an operator.
   */
  operatorEmails: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The host of the default PUBLIC_BASE_URL: the address the service listens on, in the one loopback
 * form the docs print (127.0.0.1) when it listens on every address. OAuth clients compare the
 * endpoint URL they were given with the protected resource the service names, character for
 * character, so the default must be the form people are told to use (docs/decisions.md).
 */
function defaultPublicHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const production = env.NODE_ENV === 'production';
  const server = readServer(r);
  const stores = readStores(r);
  const signIn = readSignIn(r, production);
  const oauth = readOAuth(r, production);
  const testClockOffsetFile = r.str('TEST_CLOCK_OFFSET_FILE') ?? null;
  if (testClockOffsetFile !== null && production)
    r.problems.push('TEST_CLOCK_OFFSET_FILE is for tests and refused when NODE_ENV=production');
  const operations = readOperations(r);
  const tuning = readTuning(r);
  const { oidc, oidcClientId, smtpUrl, mailFrom } = signIn;
  const config: Config = {
    ...server,
    databaseUrl: stores.databaseUrl,
    dataDir: r.str('DATA_DIR') ?? './.data',
    redisUrl: stores.redisUrl,
    redisKeyPrefix: r.str('REDIS_KEY_PREFIX') ?? 'wf:',
    rateLimitMode: stores.rateLimitMode,
    trustProxyHops: tuning.trustProxyHops,
    databasePoolSize: tuning.databasePoolSize,
    queryTimeoutMs: tuning.queryTimeoutMs,
    shutdownGraceMs: tuning.shutdownGraceMs,
    idleCollectionSeconds: operations.idleCollectionSeconds,
    marketplaceLargeFrom: tuning.marketplaceLargeFrom,
    production,
    oidc,
    oidcClient:
      oidc.issuer && oidcClientId
        ? { clientId: oidcClientId, clientSecret: signIn.oidcClientSecret, name: r.str('OIDC_PROVIDER_NAME') ?? null }
        : null,
    devAuth: signIn.devAuth,
    github: signIn.github,
    mail: smtpUrl ? { smtpUrl, from: mailFrom ?? `Workflow service <no-reply@${new URL(server.publicBaseUrl).hostname}>` } : null,
    stripe: readStripe(r),
    logLevel: operations.logLevel,
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    metricsToken: r.str('METRICS_TOKEN') ?? null,
    mcpSessionSecret: oauth.mcpSessionSecret,
    mcpAllowedOrigins: r.origins('MCP_ALLOWED_ORIGINS'),
    oauthJwks: oauth.oauthJwks,
    oauthClientMetadataLoopback: oauth.oauthClientMetadataLoopback,
    oauthClientMetadataDir: oauth.oauthClientMetadataDir,
    oauthClientMetadataFetch: oauth.oauthClientMetadataFetch,
    testClockOffsetFile,
    operatorEmails: operations.operatorEmails,
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** PORT, HOST and PUBLIC_BASE_URL (by default the address the service listens on). */
function readServer(r: EnvReader): Pick<Config, 'port' | 'host' | 'publicBaseUrl'> {
  const port = r.int('PORT', 4000, 0, 65535);
  const host = r.str('HOST') ?? '127.0.0.1';
  let publicBaseUrl = r.url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${defaultPublicHost(host)}:${port}/v1`;
  publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  if (!publicBaseUrl.endsWith('/v1')) r.problems.push(`PUBLIC_BASE_URL must end in /v1 (got '${publicBaseUrl}')`);
  return { port, host, publicBaseUrl };
}

/** DATABASE_URL, REDIS_URL and RATE_LIMIT_MODE. */
function readStores(r: EnvReader): Pick<Config, 'databaseUrl' | 'redisUrl' | 'rateLimitMode'> {
  const databaseUrl = r.url('DATABASE_URL', ['postgres:', 'postgresql:']) ?? null;
  const redisUrl = r.url('REDIS_URL', ['redis:', 'rediss:']) ?? null;
  const rateLimitMode = r.str('RATE_LIMIT_MODE') ?? 'enforce';
  if (rateLimitMode !== 'enforce' && rateLimitMode !== 'report')
    r.problems.push(`RATE_LIMIT_MODE must be enforce or report (got '${rateLimitMode}')`);
  return { databaseUrl, redisUrl, rateLimitMode: rateLimitMode === 'report' ? 'report' : 'enforce' };
}

/** IDLE_COLLECTION_SECONDS, ADMIN_EMAILS and LOG_LEVEL. */
function readOperations(r: EnvReader): Pick<Config, 'idleCollectionSeconds' | 'operatorEmails' | 'logLevel'> {
  // The idle collection looks at the process's CPU in windows of 10 s, so the quiet is counted in them.
  const idleCollectionSeconds = r.int('IDLE_COLLECTION_SECONDS', 30, 0, 3600);
  if (idleCollectionSeconds % 10 !== 0)
    r.problems.push(`IDLE_COLLECTION_SECONDS must be a whole number of tens of seconds (got '${idleCollectionSeconds}'): 0 never collects`);

  const operatorEmails = (r.str('ADMIN_EMAILS') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  for (const e of operatorEmails)
    if (!/^[^\s@,]+@[^\s@,]+$/.test(e)) r.problems.push(`ADMIN_EMAILS must list e-mail addresses separated by commas (got '${e}')`);

  const logLevel = r.str('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) r.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${logLevel}')`);
  return { idleCollectionSeconds, operatorEmails, logLevel };
}

/** The proxies in front, the database pool and timeouts, and the marketplace's size threshold. */
function readTuning(
  r: EnvReader,
): Pick<Config, 'trustProxyHops' | 'databasePoolSize' | 'queryTimeoutMs' | 'shutdownGraceMs' | 'marketplaceLargeFrom'> {
  return {
    trustProxyHops: r.int('TRUST_PROXY_HOPS', 0, 0, 10),
    databasePoolSize: r.int('DATABASE_POOL_SIZE', 10, 1, 200),
    queryTimeoutMs: r.int('QUERY_TIMEOUT_MS', 10_000, 1_000, 600_000),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000, 1_000, 120_000),
    marketplaceLargeFrom: r.int('MARKETPLACE_LARGE_FROM', 200_000, 0, 1_000_000_000),
  };
}

/** Stripe's keys, API base and the prices of the plans. */
function readStripe(r: EnvReader): Config['stripe'] {
  return {
    secretKey: r.str('STRIPE_SECRET_KEY'),
    webhookSecret: r.str('STRIPE_WEBHOOK_SECRET'),
    apiUrl: r.url('STRIPE_API_URL', ['http:', 'https:']),
    prices: {
      pro_monthly: r.str('STRIPE_PRICE_PRO_MONTHLY'),
      pro_annual: r.str('STRIPE_PRICE_PRO_ANNUAL'),
      team_monthly: r.str('STRIPE_PRICE_TEAM_MONTHLY'),
      team_annual: r.str('STRIPE_PRICE_TEAM_ANNUAL'),
    },
  };
}
