import { existsSync } from 'node:fs';
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
  oidc: { issuer?: string; audience?: string; jwksUrl?: string };
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
  github: { clientId: string; clientSecret: string; url: string; apiUrl: string } | null;
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

type Env = Record<string, string | undefined>;

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
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')} (got '${parsed.protocol}')`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const origins = (name: string): string[] => {
    const list = (str(name) ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    for (const o of list) {
      if (o === '*') continue;
      let origin: string | null = null;
      try {
        origin = /^https?:\/\/[^/?#]+$/i.test(o) ? new URL(o).origin : null;
      } catch {
        // reported below
      }
      if (origin === null || origin === 'null')
        problems.push(`${name} must list origins as scheme://host[:port], or *, separated by commas (got '${o}')`);
    }
    return list;
  };

  const production = env.NODE_ENV === 'production';
  const port = int('PORT', 4000, 0, 65535);
  const host = str('HOST') ?? '127.0.0.1';

  let publicBaseUrl = url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${defaultPublicHost(host)}:${port}/v1`;
  publicBaseUrl = publicBaseUrl.replace(/\/+$/, '');
  if (!publicBaseUrl.endsWith('/v1')) problems.push(`PUBLIC_BASE_URL must end in /v1 (got '${publicBaseUrl}')`);

  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']) ?? null;
  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:']) ?? null;
  const rateLimitMode = str('RATE_LIMIT_MODE') ?? 'enforce';
  if (rateLimitMode !== 'enforce' && rateLimitMode !== 'report')
    problems.push(`RATE_LIMIT_MODE must be enforce or report (got '${rateLimitMode}')`);

  const oidc = { issuer: str('OIDC_ISSUER'), audience: str('OIDC_AUDIENCE'), jwksUrl: url('OIDC_JWKS_URL', ['http:', 'https:']) };
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']) ?? null;
  const mailFrom = str('MAIL_FROM') ?? null;
  if (mailFrom !== null && !/^(?:[^<>@\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(mailFrom))
    problems.push(`MAIL_FROM must be an address, or a name and an address in angle brackets (got '${mailFrom}')`);
  if (mailFrom !== null && smtpUrl === null) problems.push('MAIL_FROM is set but SMTP_URL is not: e-mail sign-in needs a mail server');
  const github = githubConfig(str, problems);
  // Browser sign-in that needs no OpenID provider: then the service accepts no ID tokens of its own.
  const ownSignIn = smtpUrl !== null || github !== null;
  const devAuthRaw = str('DEV_AUTH');
  if (devAuthRaw !== undefined && !['on', 'off'].includes(devAuthRaw)) problems.push(`DEV_AUTH must be on or off (got '${devAuthRaw}')`);
  const devAuth = devAuthRaw === undefined ? !production : devAuthRaw === 'on';
  if (devAuth && production) problems.push('DEV_AUTH=on is refused when NODE_ENV=production');
  if (oidc.issuer) {
    if (!oidc.audience) problems.push('OIDC_AUDIENCE must be set when OIDC_ISSUER is set');
    if (!oidc.jwksUrl) problems.push('OIDC_JWKS_URL must be set when OIDC_ISSUER is set');
  } else if ((production || !devAuth) && !ownSignIn) {
    const missing = ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_JWKS_URL'].filter((n) => !str(n));
    problems.push(
      `${missing.join(', ')} (or SMTP_URL for e-mail sign-in, or GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET) must be set ${production ? 'in production' : 'when DEV_AUTH=off'}: no way to sign in is configured`,
    );
  }

  const oidcClientId = str('OIDC_CLIENT_ID');
  const oidcClientSecret = str('OIDC_CLIENT_SECRET') ?? null;
  if (oidcClientId && !oidc.issuer)
    problems.push('OIDC_CLIENT_ID is set but OIDC_ISSUER is not: browser sign-in needs the provider it is a client of');
  if (oidcClientSecret && !oidcClientId) problems.push('OIDC_CLIENT_SECRET is set but OIDC_CLIENT_ID is not');

  const mcpSessionSecret = str('MCP_SESSION_SECRET') ?? null;
  if (mcpSessionSecret !== null && mcpSessionSecret.length < 32) problems.push('MCP_SESSION_SECRET must be at least 32 characters');
  if (mcpSessionSecret === null && production)
    problems.push('MCP_SESSION_SECRET must be set in production: every instance must sign tool-endpoint sessions with the same key');

  let oauthJwks: Config['oauthJwks'] = null;
  const jwksRaw = str('OAUTH_JWKS');
  if (jwksRaw !== undefined) {
    try {
      const parsed = JSON.parse(jwksRaw) as { keys?: unknown };
      if (
        !Array.isArray(parsed.keys) ||
        parsed.keys.length === 0 ||
        !parsed.keys.every((k) => typeof k === 'object' && k !== null && 'd' in k)
      )
        throw new Error('no private keys');
      oauthJwks = parsed as { keys: Record<string, unknown>[] };
    } catch {
      problems.push('OAUTH_JWKS must be a JSON Web Key Set ({"keys":[...]}) of private keys (each with its "d")');
    }
  } else if (production) {
    problems.push('OAUTH_JWKS must be set in production: every instance must sign with the same OAuth keys');
  }
  const loopbackMetadata = str('OAUTH_CLIENT_METADATA_LOOPBACK');
  if (loopbackMetadata !== undefined && !['on', 'off'].includes(loopbackMetadata))
    problems.push(`OAUTH_CLIENT_METADATA_LOOPBACK must be on or off (got '${loopbackMetadata}')`);
  if (loopbackMetadata === 'on' && production)
    problems.push('OAUTH_CLIENT_METADATA_LOOPBACK=on is for tests and refused when NODE_ENV=production');

  const oauthClientMetadataDir = str('OAUTH_CLIENT_METADATA_DIR') ?? null;
  if (oauthClientMetadataDir !== null && !existsSync(oauthClientMetadataDir))
    problems.push(`OAUTH_CLIENT_METADATA_DIR names a directory that does not exist (${oauthClientMetadataDir})`);

  const metadataFetch = str('OAUTH_CLIENT_METADATA_FETCH');
  if (metadataFetch !== undefined && !['on', 'off'].includes(metadataFetch))
    problems.push(`OAUTH_CLIENT_METADATA_FETCH must be on or off (got '${metadataFetch}')`);

  const testClockOffsetFile = str('TEST_CLOCK_OFFSET_FILE') ?? null;
  if (testClockOffsetFile !== null && production) problems.push('TEST_CLOCK_OFFSET_FILE is for tests and refused when NODE_ENV=production');

  // The idle collection looks at the process's CPU in windows of 10 s, so the quiet is counted in them.
  const idleCollectionSeconds = int('IDLE_COLLECTION_SECONDS', 30, 0, 3600);
  if (idleCollectionSeconds % 10 !== 0)
    problems.push(`IDLE_COLLECTION_SECONDS must be a whole number of tens of seconds (got '${idleCollectionSeconds}'): 0 never collects`);

  const operatorEmails = (str('ADMIN_EMAILS') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  for (const e of operatorEmails)
    if (!/^[^\s@,]+@[^\s@,]+$/.test(e)) problems.push(`ADMIN_EMAILS must list e-mail addresses separated by commas (got '${e}')`);

  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${logLevel}')`);

  const config: Config = {
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    dataDir: str('DATA_DIR') ?? './.data',
    redisUrl,
    redisKeyPrefix: str('REDIS_KEY_PREFIX') ?? 'wf:',
    rateLimitMode: rateLimitMode === 'report' ? 'report' : 'enforce',
    trustProxyHops: int('TRUST_PROXY_HOPS', 0, 0, 10),
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 200),
    queryTimeoutMs: int('QUERY_TIMEOUT_MS', 10_000, 1_000, 600_000),
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 10_000, 1_000, 120_000),
    idleCollectionSeconds,
    marketplaceLargeFrom: int('MARKETPLACE_LARGE_FROM', 200_000, 0, 1_000_000_000),
    production,
    oidc,
    oidcClient:
      oidc.issuer && oidcClientId
        ? { clientId: oidcClientId, clientSecret: oidcClientSecret, name: str('OIDC_PROVIDER_NAME') ?? null }
        : null,
    devAuth,
    github,
    mail: smtpUrl ? { smtpUrl, from: mailFrom ?? `Workflow service <no-reply@${new URL(publicBaseUrl).hostname}>` } : null,
    stripe: {
      secretKey: str('STRIPE_SECRET_KEY'),
      webhookSecret: str('STRIPE_WEBHOOK_SECRET'),
      apiUrl: url('STRIPE_API_URL', ['http:', 'https:']),
      prices: {
        pro_monthly: str('STRIPE_PRICE_PRO_MONTHLY'),
        pro_annual: str('STRIPE_PRICE_PRO_ANNUAL'),
        team_monthly: str('STRIPE_PRICE_TEAM_MONTHLY'),
        team_annual: str('STRIPE_PRICE_TEAM_ANNUAL'),
      },
    },
    logLevel,
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    metricsToken: str('METRICS_TOKEN') ?? null,
    mcpSessionSecret,
    mcpAllowedOrigins: origins('MCP_ALLOWED_ORIGINS'),
    oauthJwks,
    oauthClientMetadataLoopback: loopbackMetadata === 'on',
    oauthClientMetadataDir,
    oauthClientMetadataFetch: metadataFetch !== 'off',
    testClockOffsetFile,
    operatorEmails,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET and GITHUB_URL (https, or http on this machine only). */
function githubConfig(str: (name: string) => string | undefined, problems: string[]): Config['github'] {
  const clientId = str('GITHUB_CLIENT_ID');
  const clientSecret = str('GITHUB_CLIENT_SECRET');
  const raw = str('GITHUB_URL');
  if (!clientId && !clientSecret) {
    if (raw) problems.push('GITHUB_URL is set but GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are not: GitHub sign-in needs both');
    return null;
  }
  if (!clientId || !clientSecret) {
    problems.push(`${clientId ? 'GITHUB_CLIENT_SECRET' : 'GITHUB_CLIENT_ID'} must be set too: GitHub sign-in needs both`);
    return null;
  }
  const parsed = URL.parse(raw ?? 'https://github.com');
  if (!parsed || parsed.search || parsed.hash || parsed.username || parsed.password) {
    problems.push(
      `GITHUB_URL must be the address of GitHub or of a GitHub Enterprise Server, such as https://github.example.com (got '${raw}')`,
    );
    return null;
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) {
    problems.push(`GITHUB_URL must use https (http only on this machine: 127.0.0.1, localhost, [::1]) (got '${raw}')`);
    return null;
  }
  const url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  const apiUrl = url === 'https://github.com' ? 'https://api.github.com' : `${url}/api/v3`;
  return { clientId, clientSecret, url, apiUrl };
}
