import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
});
