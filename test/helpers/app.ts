import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { DEV_ISSUER, signDevToken } from '../../src/auth/dev-issuer.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/** OAUTH_JWKS as an operator sets it in production: a fresh private ES256 key, made per call. */
export function testOAuthJwks(): string {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return JSON.stringify({ keys: [{ ...jwk, alg: 'ES256', use: 'sig', kid: 'test' }] });
}

interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** A raw body sent as is (for malformed JSON and the like). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApp {
  app: App;
  database: TestDatabase;
  config: Config;
  dataDir: string;
  /**
   * A development-issuer token for this e-mail. The user is created at once on the given plan
   * (default enterprise, so functional tests are not shaped by the free plan's limits; tests of
   * limits ask for 'free').
   */
  token(
    email: string,
    options?: { sub?: string; expiresInSeconds?: number; plan?: 'free' | 'pro' | 'team' | 'enterprise' },
  ): Promise<string>;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  /** A GraphQL operation on /graphql. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<CallResult<T>>;
  close(): Promise<void>;
}

/**
 * A service instance on a fresh database, called through its fetch handler (no port).
 * `env` adds configuration variables as an operator would set them.
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    database?: TestDatabase;
    clock?: Clock;
    dashboardDir?: string | null;
    /** Where the service's logs go (default: nowhere). */
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wf-test-'));
  // Suites make far more requests per minute than the free plan allows: they get the headers but no
  // refusals unless a test asks for RATE_LIMIT_MODE=enforce.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test', RATE_LIMIT_MODE: 'report', ...options.env });
  const database = options.database ?? (await createTestDatabase());
  const app = await createApp(config, {
    database: database.db,
    logger: options.logger ?? createLogger('silent'),
    clock: options.clock,
    dashboardDir: options.dashboardDir,
  });
  const tokens = new Map<string, string>();

  async function call<T>(method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (a document or a page): the text is the body.
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  return {
    app,
    database,
    config,
    dataDir,
    async token(email, tokenOptions = {}) {
      const { plan = 'enterprise', ...signOptions } = tokenOptions;
      const key = `${email}|${signOptions.sub ?? ''}|${signOptions.expiresInSeconds ?? ''}`;
      let token = tokens.get(key);
      if (!token) {
        token = await signDevToken(dataDir, { email, ...signOptions });
        tokens.set(key, token);
        const viewer = await app.services.users.resolveViewer({
          issuer: DEV_ISSUER,
          subject: signOptions.sub ?? `dev|${email.toLowerCase()}`,
          email,
          name: null,
          issuedAt: Math.floor(Date.now() / 1000),
        });
        if (plan !== 'free') {
          await database.db.prisma.billingSubscription.upsert({
            where: { userId: viewer.userId },
            create: { userId: viewer.userId, plan, status: 'active' },
            update: { plan, status: 'active' },
          });
        }
      }
      return token;
    },
    call,
    graphql(query, variables, token) {
      return call('POST', '/graphql', { token, body: { query, variables } });
    },
    async close() {
      await app.close();
      if (!options.database) await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
