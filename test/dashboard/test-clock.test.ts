import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileOffsetClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The clock the browser tests move in a service they started as a separate process. */

const dir = mkdtempSync(join(tmpdir(), 'wf-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the test clock (TEST_CLOCK_OFFSET_FILE)', () => {
  it('is refused in production and read from the configuration otherwise', () => {
    let problems = '';
    try {
      loadConfig({ NODE_ENV: 'production', TEST_CLOCK_OFFSET_FILE: join(dir, 'offset') });
    } catch (error) {
      problems = (error as ConfigError).problems.join('\n');
    }
    expect(problems).toMatch(/TEST_CLOCK_OFFSET_FILE is for tests and refused when NODE_ENV=production/);
    expect(loadConfig({}).testClockOffsetFile).toBeNull();
    expect(loadConfig({ TEST_CLOCK_OFFSET_FILE: join(dir, 'offset') }).testClockOffsetFile).toBe(join(dir, 'offset'));
  });

  it('runs ahead by what the file holds at each reading; no file is no offset', () => {
    const file = join(dir, 'offset');
    const clock = fileOffsetClock(file);
    const day = 24 * 60 * 60 * 1000;
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1000);
    writeFileSync(file, String(7 * day));
    expect(Math.abs(clock.now().getTime() - (Date.now() + 7 * day))).toBeLessThan(1000);
    writeFileSync(file, '');
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(1000);
    writeFileSync(file, 'soon');
    expect(() => clock.now()).toThrow(/no whole number of milliseconds/);
  });
});
