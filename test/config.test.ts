import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

/** What the service reads from its environment, and what it refuses (src/config.ts). */
describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:4000/v1',
      databaseUrl: null,
      dataDir: './.data',
      redisUrl: null,
      devAuth: true,
      logLevel: 'info',
    });
    expect(c.bodyLimitBytes).toBeGreaterThanOrEqual(1024 * 1024);
  });

  it('defaults PUBLIC_BASE_URL to the address it listens on, in the loopback form the docs print', () => {
    expect(loadConfig({ PORT: '4102' }).publicBaseUrl).toBe('http://127.0.0.1:4102/v1');
    expect(loadConfig({ HOST: '0.0.0.0' }).publicBaseUrl).toBe('http://127.0.0.1:4000/v1');
    expect(loadConfig({ HOST: '::' }).publicBaseUrl).toBe('http://127.0.0.1:4000/v1');
    expect(loadConfig({ HOST: '::1' }).publicBaseUrl).toBe('http://[::1]:4000/v1');
    expect(loadConfig({ HOST: '10.1.2.3' }).publicBaseUrl).toBe('http://10.1.2.3:4000/v1');
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_BASE_URL: 'https://workflows.example.com/v1/' }).publicBaseUrl).toBe(
      'https://workflows.example.com/v1',
    );
  });

  it('refuses production without an identity provider, naming the variables', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (error) {
      expect((error as Error).message).toMatch(/OIDC_ISSUER, OIDC_AUDIENCE, OIDC_JWKS_URL/);
    }
  });

  it('refuses DEV_AUTH=on in production and reports every problem at once', () => {
    try {
      loadConfig({ NODE_ENV: 'production', DEV_AUTH: 'on', PORT: 'abc', PUBLIC_BASE_URL: 'http://x.example/api' });
      expect.unreachable();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/DEV_AUTH=on is refused/);
      expect(problems).toMatch(/PORT must be an integer/);
      expect(problems).toMatch(/PUBLIC_BASE_URL must end in \/v1/);
    }
  });

  it('reads OIDC settings and a PostgreSQL URL', () => {
    const c = loadConfig({
      OIDC_ISSUER: 'https://idp.example/',
      OIDC_AUDIENCE: 'wf',
      OIDC_JWKS_URL: 'https://idp.example/jwks',
      DATABASE_URL: 'postgres://u@db/x',
      PUBLIC_BASE_URL: 'https://api.example.com/v1/',
    });
    expect(c.oidc).toEqual({ issuer: 'https://idp.example/', audience: 'wf', jwksUrl: 'https://idp.example/jwks' });
    expect(c.databaseUrl).toBe('postgres://u@db/x');
    expect(c.publicBaseUrl).toBe('https://api.example.com/v1');
  });
});

/** The database settings an operator sizes instances with (docs/operations.md, "Sizing"). */
describe('database settings', () => {
  it('default to a pool of 10 connections and a 10 s query bound', () => {
    const config = loadConfig({});
    expect(config.databasePoolSize).toBe(10);
    expect(config.queryTimeoutMs).toBe(10_000);
  });

  it('take DATABASE_POOL_SIZE and QUERY_TIMEOUT_MS', () => {
    const config = loadConfig({ DATABASE_POOL_SIZE: '25', QUERY_TIMEOUT_MS: '30000' });
    expect(config.databasePoolSize).toBe(25);
    expect(config.queryTimeoutMs).toBe(30_000);
  });

  it('take IDLE_COLLECTION_SECONDS in tens of seconds, 30 by default and 0 for never', () => {
    expect(loadConfig({}).idleCollectionSeconds).toBe(30);
    expect(loadConfig({ IDLE_COLLECTION_SECONDS: '0' }).idleCollectionSeconds).toBe(0);
    expect(loadConfig({ IDLE_COLLECTION_SECONDS: '120' }).idleCollectionSeconds).toBe(120);
    for (const [raw, message] of [
      ['25', "IDLE_COLLECTION_SECONDS must be a whole number of tens of seconds (got '25')"],
      ['3610', "IDLE_COLLECTION_SECONDS must be an integer from 0 to 3600 (got '3610')"],
      ['soon', "IDLE_COLLECTION_SECONDS must be an integer from 0 to 3600 (got 'soon')"],
    ] as const)
      expect(() => loadConfig({ IDLE_COLLECTION_SECONDS: raw }), raw).toThrow(message);
  });

  it('take MARKETPLACE_LARGE_FROM as a number of workflows, 200,000 by default and 0 for always', () => {
    expect(loadConfig({}).marketplaceLargeFrom).toBe(200_000);
    expect(loadConfig({ MARKETPLACE_LARGE_FROM: '0' }).marketplaceLargeFrom).toBe(0);
    expect(loadConfig({ MARKETPLACE_LARGE_FROM: '50000' }).marketplaceLargeFrom).toBe(50_000);
    for (const raw of ['-1', 'many', '1.5'])
      expect(() => loadConfig({ MARKETPLACE_LARGE_FROM: raw }), raw).toThrow(
        `MARKETPLACE_LARGE_FROM must be an integer from 0 to 1000000000 (got '${raw}')`,
      );
  });

  it('take ADMIN_EMAILS as a list of e-mail addresses, without case, nobody by default', () => {
    expect(loadConfig({}).operatorEmails).toEqual([]);
    expect(loadConfig({ ADMIN_EMAILS: ' Ops@Example.com, ,second@example.org ' }).operatorEmails).toEqual([
      'ops@example.com',
      'second@example.org',
    ]);
    for (const raw of ['ops', 'ops@example.com;other@example.com', 'two words@example.com'])
      expect(() => loadConfig({ ADMIN_EMAILS: raw }), raw).toThrow('ADMIN_EMAILS must list e-mail addresses separated by commas');
  });

  it('refuse values out of range or not whole numbers, naming each variable', () => {
    for (const [pool, timeout] of [
      ['0', '999'],
      ['201', '600001'],
      ['ten', '1.5'],
      ['-1', '1e4x'],
    ] as const) {
      let error: unknown;
      try {
        loadConfig({ DATABASE_POOL_SIZE: pool, QUERY_TIMEOUT_MS: timeout });
      } catch (e) {
        error = e;
      }
      expect(error, `${pool} / ${timeout}`).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain(`DATABASE_POOL_SIZE must be an integer from 1 to 200 (got '${pool}')`);
      expect(problems).toContain(`QUERY_TIMEOUT_MS must be an integer from 1000 to 600000 (got '${timeout}')`);
    }
  });

  it('accepts e-mail sign-in as the only way in, in production, and checks its variables', () => {
    const base = { NODE_ENV: 'production', MCP_SESSION_SECRET: 'a'.repeat(40), OAUTH_JWKS: '{"keys":[{"d":"x"}]}' };
    const config = loadConfig({
      ...base,
      SMTP_URL: 'smtps://user:pass@smtp.example.com:465',
      PUBLIC_BASE_URL: 'https://wf.example.com/v1',
    });
    expect(config.mail).toEqual({ smtpUrl: 'smtps://user:pass@smtp.example.com:465', from: 'Workflow service <no-reply@wf.example.com>' });
    expect(loadConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Workflows <a@b.example>' }).mail?.from).toBe(
      'Workflows <a@b.example>',
    );
    for (const [env, problem] of [
      [{ SMTP_URL: 'http://mail.example.com' }, /SMTP_URL must use smtp: or smtps:/],
      [{ SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'not an address' }, /MAIL_FROM must be an address/],
      [{ MAIL_FROM: 'a@b.example' }, /MAIL_FROM is set but SMTP_URL is not/],
    ] as const) {
      try {
        loadConfig({ ...base, ...env });
        expect.unreachable();
      } catch (error) {
        expect((error as ConfigError).problems.join('\n')).toMatch(problem);
      }
    }
  });
});
