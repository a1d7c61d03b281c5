import type { FieldProblem } from './errors.js';

/**
 * Lengths of what people write, counted the way they count: in characters, which here means
 * Unicode code points (an emoji is one character, not two UTF-16 units). Every length rule on user
 * text (names, descriptions, categories, tags) counts with `characterCount`.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * A count with its noun, for every message a person reads (the service's errors, the dashboard,
 * the command line): "1 deployment", "2 deployments"; `many` for nouns whose plural is not `one` + s.
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "is" or "are", agreeing with a count. */
export function isOrAre(count: number): string {
  return count === 1 ? 'is' : 'are';
}

/** The first `max` characters of `text`, never splitting one. */
export function truncateCharacters(text: string, max: number): string {
  return characterCount(text) <= max ? text : [...text].slice(0, max).join('');
}

/** Names of workflows, deployments and API keys (spec 2.2 and 4.2: "max 100 characters"). */
export const NAME_MAX = 100;

/**
 * The length rules of what people write, in characters as counted above: the one place the
 * services check them and the dashboard reads them (it imports this module; it keeps no copy).
 */
export const TEXT_LIMITS = {
  name: NAME_MAX,
  /** Descriptions of workflows and deployments. */
  description: 2000,
  category: 50,
  tags: 20,
  tag: 32,
  reviewText: { min: 10, max: 2000 },
  /** A user's public display name. */
  displayName: 50,
  /** The reason of a report of a workflow, and of an operator's action on one. */
  moderationReason: 1000,
} as const;

/**
 * The name rule of every named resource: trimmed, not empty, at most NAME_MAX characters. Adds the
 * problem to `problems` and returns the trimmed name.
 */
export function cleanName(raw: string, problems: FieldProblem[], field = 'name'): string {
  const name = raw.trim();
  const count = characterCount(name);
  if (count === 0) problems.push({ field, message: `${field} must not be empty` });
  else if (count > NAME_MAX) problems.push({ field, message: `${field} must be at most ${NAME_MAX} characters (got ${count})` });
  return name;
}

/** Adds a problem when `text` is longer than `max` characters. */
export function checkLength(text: string, max: number, field: string, problems: FieldProblem[]): void {
  if (characterCount(text) > max) problems.push({ field, message: `${field} must be at most ${max} characters` });
}

/** Lower-case ASCII words joined by single hyphens; accents are folded so "Révision" reads "revision". */
export function asciiSlug(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Characters that hide or reorder text for a human reader while an agent still reads it:
 * bidirectional embeddings, overrides, isolates and marks; zero-width and invisible format
 * characters; and Unicode tag characters (U+E0000–E007F), which carry invisible ASCII.
 * The publishing check flags them, display names refuse them, and the rendering of another
 * author's text for agents makes them visible.
 */
export const HIDDEN_CHARACTERS =
  /[\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu;

/**
 * Every line break CommonMark or a Unicode reader may honour: CRLF, a lone CR, LF, NEL,
 * the line and paragraph separators, and vertical tab and form feed.
 */
// eslint-disable-next-line no-control-regex -- vertical tab and form feed are the point
export const LINE_BREAKS = /\r\n|[\n\r\u000B\u000C\u0085\u2028\u2029]/g;

/**
 * A request path as an error may repeat it: any segment that could be a key or a token (an API key
 * pasted into a wrong address, say) is written as `<redacted>`, so an error never sends one back.
 */
export function pathForErrors(path: string): string {
  return path
    .split('/')
    .map((segment) => (/^wfk_|^[A-Za-z0-9_-]{32,}$/.test(segment) ? '<redacted>' : segment))
    .join('/');
}
