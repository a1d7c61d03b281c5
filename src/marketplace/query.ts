import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';

/**
 * Turns the text a user typed into the marketplace search box into a tsquery for the 'simple'
 * configuration. Nothing the user typed reaches PostgreSQL as query syntax: the text is cut into
 * words of letters, digits and combining marks (every other character, including the tsquery
 * operators & | ! ( ) : * <-> and quotes, only separates words), each word becomes a quoted term,
 * and the terms are joined with AND. The last word is a prefix (the one being typed); the words
 * before it are whole words, so each of them is one posting list that GIN can skip through, where a
 * prefix is the union of every word it starts (docs/marketplace.md, "Search"). The result is passed
 * to to_tsquery as a bound parameter.
 */
export const SEARCH_LIMITS = {
  /** Longer text is refused rather than cut: a silent cut would search for something else. */
  maxLength: 200,
  /** Words after this many are ignored; more AND-ed prefix terms only narrow an empty result. */
  maxTerms: 8,
  /** A longer word is cut to this many characters (it still matches as a prefix). */
  maxTermLength: 64,
  /** A last word that starts more of the marketplace's words than this stays a prefix. */
  maxPrefixWords: 32,
} as const;

export interface SearchTerms {
  terms: string[];
  /** The last word, matched as the start of a word. */
  prefix: string;
  /** `'word1' & 'word2':*` — only letters, digits, quotes, `:*` and ` & `. */
  tsquery: string;
  /** A short digest of the terms, so a cursor of one search is refused by another. */
  digest: string;
}

// Combining marks count as letters: scripts such as Devanagari write vowels with them.
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

function invalid(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { fields: [{ field: 'q', message }] });
}

export function parseSearchText(q: string): SearchTerms {
  const text = q.normalize('NFKC').trim();
  if (!text) throw invalid('q must not be empty: type at least one word to search for');
  if ([...text].length > SEARCH_LIMITS.maxLength)
    throw invalid(`q must be at most ${SEARCH_LIMITS.maxLength} characters (got ${[...text].length})`);
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const term = [...match[0]].slice(0, SEARCH_LIMITS.maxTermLength).join('');
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === SEARCH_LIMITS.maxTerms) break;
  }
  if (terms.length === 0) throw invalid('q must contain at least one letter or digit');
  return {
    terms,
    prefix: terms[terms.length - 1]!,
    tsquery: terms.map((t, i) => (i === terms.length - 1 ? `'${t}':*` : `'${t}'`)).join(' & '),
    digest: createHash('sha256').update(terms.join(' ')).digest('base64url').slice(0, 10),
  };
}

/**
 * A search of several words whose last word is read as the words it starts: `whole` is the tsquery
 * of the words before it (for to_tsquery), `words` a tsquery literal that matches any one of the
 * given words (for a cast to tsquery; lexemes as stored, so no parser runs over them). Null when the
 * search is one word, or when the words cannot stand for the prefix: none (the prefix matches
 * nothing), too many (GIN then unions them either way) or a word that the category rewrite of the
 * query cannot carry (a quote or backslash). The search then keeps the prefix.
 */
export function prefixAsWords(terms: SearchTerms, words: string[]): { whole: string; words: string } | null {
  if (terms.terms.length < 2 || words.length === 0 || words.length > SEARCH_LIMITS.maxPrefixWords) return null;
  if (words.some((w) => !w.startsWith(terms.prefix) || /['\\]/.test(w))) return null;
  return {
    whole: terms.terms
      .slice(0, -1)
      .map((t) => `'${t}'`)
      .join(' & '),
    words: words.map((w) => `'${w}'`).join(' | '),
  };
}
