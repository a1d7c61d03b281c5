import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTextArray, TEXT_ARRAY } from '../../src/db/text-array.js';
import { poolTypes } from '../../src/db/type-parsers.js';

/** The driver's own parser: what every result must equal. */
const driver = pg.types.getTypeParser(TEXT_ARRAY, 'text') as (text: string) => unknown;

/** Both parsers' answer, or the error each throws. */
const answerOf = (parse: (text: string) => unknown, text: string) => {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

/** A small deterministic generator, so a failure names an input that reproduces. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

/** Elements as PostgreSQL writes them in an array: quoted and escaped when they must be. */
function written(element: string | null): string {
  if (element === null) return 'NULL';
  const mustQuote = element === '' || /[{}",\\\s]/.test(element) || element.toUpperCase() === 'NULL';
  return mustQuote ? `"${element.replace(/[\\"]/g, (c) => `\\${c}`)}"` : element;
}

describe('text[] as the service reads it', () => {
  it('gives the driver’s array for arrays as PostgreSQL writes them', () => {
    const next = generator(11);
    const pieces = ['api', 'review', 'ci', 'x', 'NULL', 'null', '', ' ', 'a b', 'a,b', '"', '\\', '{', '}', 'é', 'データ', 'N'];
    const failures: string[] = [];
    for (let i = 0; i < 20_000; i += 1) {
      const elements = Array.from({ length: next(6) }, () =>
        next(8) === 0 ? null : Array.from({ length: 1 + next(3) }, () => pieces[next(pieces.length)]).join(''),
      );
      const text = `{${elements.map(written).join(',')}}`;
      if (JSON.stringify(answerOf(parseTextArray, text)) !== JSON.stringify(answerOf(driver, text))) failures.push(text);
    }
    expect(failures).toEqual([]);
  });

  it('gives the driver’s answer for any text between braces, written by PostgreSQL or not', () => {
    const next = generator(5);
    const alphabet = ['a', 'b', ',', ',', ' ', 'N', 'U', 'L', 'L', 'NULL', '"', '\\', '{', '}', 'é'];
    const failures: string[] = [];
    for (let i = 0; i < 20_000; i += 1) {
      const inner = Array.from({ length: next(12) }, () => alphabet[next(alphabet.length)]).join('');
      const text = next(10) === 0 ? inner : `{${inner}}`;
      if (JSON.stringify(answerOf(parseTextArray, text)) !== JSON.stringify(answerOf(driver, text))) failures.push(text);
    }
    expect(failures).toEqual([]);
  });

  it('reads the common forms by itself, with the driver’s answer', () => {
    for (const [text, value] of [
      ['{}', []],
      ['{api}', ['api']],
      ['{api,review,ci}', ['api', 'review', 'ci']],
      ['{api,NULL}', ['api', null]],
      ['{"a b",c}', ['a b', 'c']],
      ['{"NULL"}', ['NULL']],
      [
        '{{a,b},{c,d}}',
        [
          ['a', 'b'],
          ['c', 'd'],
        ],
      ],
      ['[0:1]={a,b}', ['a', 'b']],
    ] as const) {
      expect(parseTextArray(text), text).toEqual(value);
      expect(driver(text), text).toEqual(value);
    }
  });

  it('is the pool’s parser of text[] in text', () => {
    expect(poolTypes.getTypeParser(TEXT_ARRAY, 'text')).toBe(parseTextArray);
  });
});
