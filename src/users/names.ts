import unhomoglyph from 'unhomoglyph';
import type { FieldProblem } from '../errors.js';
import { pseudonymOf } from '../marketplace/identity.js';
import { characterCount, HIDDEN_CHARACTERS, TEXT_LIMITS } from '../text.js';

/**
 * The rules of public display names (docs/marketplace.md, "Names"): a name cannot pass for another
 * user's. Two names collide when they share a key: a Unicode TR39 skeleton of the name as written,
 * of its lower-case form, or of the lower-case form of its skeleton (so `ALICE`, `аlice` with a
 * Cyrillic а, `AIice` with a capital I and `alice` all collide). The confusable mapping is
 * confusables.txt as the `unhomoglyph` package ships it; the skeleton is TR39's: NFD, every
 * character to its prototype, NFD again.
 */

/** TR39 skeleton(X): NFD, each character replaced by its confusables.txt prototype, NFD. */
function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}

/** The keys a display name collides on (see above); every other user's name shares none of them. */
function nameKeys(name: string): string[] {
  const lower = skeleton(name.toLowerCase());
  return [...new Set([skeleton(name), lower, skeleton(skeleton(name).toLowerCase())])];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PSEUDONYM_CHARACTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const pseudonymTokens = [...new Set([...PSEUDONYM_CHARACTERS].flatMap((c) => [skeleton(c), skeleton(skeleton(c).toLowerCase())]))].sort(
  (a, b) => b.length - a.length,
);

/**
 * A key that some pseudonym (`user-` and 8 lower-case letters or digits, pseudonymOf) also has: the
 * skeleton of `user-` followed by 8 skeletons of such characters.
 */
const PSEUDONYM_KEY = new RegExp(`^${escape(skeleton('user-'))}(?:${pseudonymTokens.map(escape).join('|')}){8}$`, 'u');
const PSEUDONYM_FORM = /^user-[a-z0-9]{8}$/i;

/** Any character that hides or reorders text, and any other control or format character. */
const HIDDEN = new RegExp(`${HIDDEN_CHARACTERS.source}|[\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}]`, 'u');

export interface CheckedName {
  /** The name as stored (NFKC, runs of white space as one space, trimmed); null clears it. */
  name: string | null;
  /** Its keys (nameKeys), empty without a name or when it is never shown (it holds an `@`). */
  keys: string[];
}

/**
 * Checks a display name `raw` for the user `userId` against every rule that needs no other user's
 * name, adding each problem to `problems`. Refused: characters that hide or reorder text (before
 * any normalisation, which would hide them), more than 50 characters, and anything that looks like
 * a pseudonym other than the user's own.
 */
export function checkDisplayName(raw: string, userId: string, problems: FieldProblem[]): CheckedName {
  const field = 'displayName';
  const hidden = HIDDEN.exec(raw.replace(/[\t\n\r\f\v]/g, ' '));
  if (hidden) {
    const code = `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    problems.push({
      field,
      message: `displayName must not contain invisible, control or bidirectional formatting characters (found ${code}): they hide or reorder what people read`,
    });
    return { name: null, keys: [] };
  }
  const name = raw.normalize('NFKC').replace(/\s+/g, ' ').trim();
  const count = characterCount(name);
  if (count > TEXT_LIMITS.displayName) {
    problems.push({ field, message: `displayName must be at most ${TEXT_LIMITS.displayName} characters (got ${count})` });
    return { name: null, keys: [] };
  }
  if (!name) return { name: null, keys: [] };
  const own = pseudonymOf(userId);
  const keys = nameKeys(name);
  const ownKeys = new Set(nameKeys(own));
  if (PSEUDONYM_FORM.test(name) && name.toLowerCase() !== own) {
    problems.push({
      field,
      message: `displayName '${name}' has the form of a user's handle (user- and 8 letters or digits); only your own, ${own}, may be used`,
    });
  } else if (keys.some((k) => PSEUDONYM_KEY.test(k)) && !keys.some((k) => ownKeys.has(k))) {
    problems.push({
      field,
      message: `displayName '${name}' looks like a user's handle (user- and 8 letters or digits); choose a name of your own`,
    });
  }
  // A name holding an @ is never shown (handleOf shows the pseudonym), so it keeps no other name from anyone.
  return { name, keys: name.includes('@') ? [] : keys };
}
