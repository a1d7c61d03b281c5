import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSearchText, prefixAsWords, SEARCH_LIMITS } from '../../src/marketplace/query.js';

/** The search text → tsquery translation: user text never becomes query syntax. */
describe('parseSearchText', () => {
  const SAFE = /^('[\p{L}\p{M}\p{N}]+' & )*'[\p{L}\p{M}\p{N}]+':\*$/u;

  it('turns words into AND-ed terms, the last a prefix, lower-cased and without repeats', () => {
    expect(parseSearchText('Code REVIEW code')).toMatchObject({ terms: ['code', 'review'], tsquery: "'code' & 'review':*" });
    expect(parseSearchText("' OR 1=1 --").tsquery).toBe("'or' & '1':*");
    expect(parseSearchText('a & | ! :* (b').tsquery).toBe("'a' & 'b':*");
    expect(parseSearchText('revi').tsquery).toBe("'revi':*");
    expect(parseSearchText('ｆｕｌｌ width').terms).toEqual(['full', 'width']);
    expect(parseSearchText('café ünïcode 日本語').terms).toEqual(['café', 'ünïcode', '日本語']);
  });

  it('caps the number of terms and the length of each', () => {
    const many = parseSearchText('a b c d e f g h i j k l');
    expect(many.terms).toHaveLength(SEARCH_LIMITS.maxTerms);
    expect(parseSearchText('x'.repeat(150)).terms[0]).toHaveLength(SEARCH_LIMITS.maxTermLength);
  });

  it('refuses empty, blank, symbol-only and over-long text', () => {
    for (const q of ['', '  ', '&|!', "'':*()", 'x'.repeat(201)]) expect(() => parseSearchText(q), q).toThrow(/q must/);
  });

  it('gives the same digest for the same terms and another for other terms', () => {
    expect(parseSearchText('Code  review').digest).toBe(parseSearchText('code review!').digest);
    expect(parseSearchText('code review').digest).not.toBe(parseSearchText('code').digest);
  });

  it('never lets an operator, quote or backslash through, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (q) => {
        let parsed;
        try {
          parsed = parseSearchText(q);
        } catch {
          return true;
        }
        return SAFE.test(parsed.tsquery) && parsed.terms.length <= SEARCH_LIMITS.maxTerms;
      }),
      { numRuns: 2000 },
    );
  });
});

/** A search's last word read as the words it starts. */
describe('prefixAsWords', () => {
  const terms = parseSearchText('mutation revi');

  it('keeps the whole words for to_tsquery and names each word the prefix starts', () => {
    expect(prefixAsWords(terms, ['review', 'reviewer', 'review-tool'])).toEqual({
      whole: "'mutation'",
      words: "'review' | 'reviewer' | 'review-tool'",
    });
    expect(prefixAsWords(parseSearchText('a b revi'), ['review'])).toEqual({ whole: "'a' & 'b'", words: "'review'" });
  });

  it('keeps the prefix for one word, for none or too many words, and for a word it cannot carry', () => {
    expect(prefixAsWords(parseSearchText('revi'), ['review'])).toBeNull();
    expect(prefixAsWords(terms, [])).toBeNull();
    const many = Array.from({ length: SEARCH_LIMITS.maxPrefixWords + 1 }, (_, i) => `revi${i}`);
    expect(prefixAsWords(terms, many)).toBeNull();
    expect(prefixAsWords(terms, many.slice(1))).not.toBeNull();
    expect(prefixAsWords(terms, ['review', "revi'ew"])).toBeNull();
    expect(prefixAsWords(terms, ['review', 'revi\\ew'])).toBeNull();
    // A word the prefix does not start is never searched for it.
    expect(prefixAsWords(terms, ['review', 'other'])).toBeNull();
  });
});
