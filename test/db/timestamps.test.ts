import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from '../../src/db/timestamps.js';
import { poolTypes } from '../../src/db/type-parsers.js';

/** The driver's own parser: what every result must equal. */
const driver = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;

const same = (text: string) => {
  const ours = parseTimestamptz(text);
  const theirs = driver(text);
  return ours instanceof Date && theirs instanceof Date
    ? ours.getTime() === theirs.getTime() || (isNaN(ours.getTime()) && isNaN(theirs.getTime()))
    : ours === theirs;
};

/** A small deterministic generator, so a failure names an input that reproduces. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('timestamptz as the service reads it', () => {
  it('gives the driver’s Date for timestamps as PostgreSQL writes them in a UTC session', () => {
    const next = generator(7);
    const failures: string[] = [];
    for (let i = 0; i < 20_000; i += 1) {
      const digits = next(7); // 0: no fraction, else 1 to 6 digits
      const fraction = digits ? `.${pad(next(10 ** digits), digits)}` : '';
      const text = `${pad(100 + next(9900), 4)}-${pad(1 + next(12), 2)}-${pad(1 + next(28), 2)} ${pad(next(24), 2)}:${pad(next(60), 2)}:${pad(next(60), 2)}${fraction}+00`;
      if (!same(text)) failures.push(text);
    }
    expect(failures).toEqual([]);
  });

  it('gives the driver’s millisecond for every fraction of one to six digits', () => {
    const failures: string[] = [];
    for (let digits = 1; digits <= 6; digits += 1) {
      for (let value = 0; value < 10 ** digits; value += 1) {
        const text = `2026-11-24 23:39:26.${pad(value, digits)}+00`;
        if (!same(text)) failures.push(text);
      }
    }
    expect(failures).toEqual([]);
  });

  it('leaves every other form to the driver, with the same answer', () => {
    for (const text of [
      '2026-11-24 23:39:26.123456+00',
      '2026-11-24 23:39:26+00',
      '2026-11-24 23:39:26.5+00',
      '2026-11-24 23:39:26+05:30',
      '2026-11-24 23:39:26.25-08',
      '2026-11-24 23:39:26-03:30:15',
      '0050-01-01 00:00:00+00',
      '0001-01-01 00:00:00+00 BC',
      '12345-06-07 08:09:10+00',
      '2026-11-24 23:39:26.+00',
      '2026-11-24 23:39:26.12x+00',
      '2026-1x-24 23:39:26+00',
      '2026-11-24 2 :39:26+00',
      '2026-02-30 10:00:00+00',
      'infinity',
      '-infinity',
    ]) {
      expect(same(text), text).toBe(true);
    }
    expect(parseTimestamptz('2026-11-24 23:39:26.123456+00')).toEqual(new Date('2026-11-24T23:39:26.123Z'));
  });

  it('is the pool’s parser of timestamptz in text, and the driver’s for every other type', () => {
    expect(poolTypes.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(poolTypes.getTypeParser(1114, 'text')).toBe(pg.types.getTypeParser(1114, 'text'));
    expect(poolTypes.getTypeParser(23, 'text')).toBe(pg.types.getTypeParser(23, 'text'));
  });
});
