/**
 * Text a person wrote, made inert for agents: line breaks normalised, hidden and control characters
 * written out, and every client preprocessing trigger broken. This is the character-level half of
 * the rendering of another author's text (src/mcp/render/untrusted.ts does the rest: which fields,
 * the provenance and its markers); it sits outside the faces so the install catalogs, a service,
 * can render the texts they carry with it too. docs/marketplace.md ("Trust") says what each rule
 * defuses and cites the clients' documentation.
 */
import { HIDDEN_CHARACTERS } from './text.js';

/** Open and close a provenance marker (src/mcp/render/untrusted.ts); inert text never contains them. */
export const MARK_OPEN = '\u27E6';
export const MARK_CLOSE = '\u27E7';

/**
 * The line breaks of LINE_BREAKS (src/text.ts) but LF, each made LF here: replacing LF by itself
 * too would cost far more on every document, for nothing.
 */
// eslint-disable-next-line no-control-regex -- vertical tab and form feed are line breaks here
const OTHER_LINE_BREAKS = /\r\n?|[\u000B\u000C\u0085\u2028\u2029]/g;

/** C0 and C1 controls but tab and line feed, and DEL. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const CONTROLS = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F]/gu;
/** The marker brackets, which only the renderer writes: in a person's text they are written out too. */
const MARKS = /[\u27E6\u27E7]/gu;

/** Any character `visible` changes: most text has none and is returned as it is after this one test. */
const INVISIBLE = new RegExp(`${OTHER_LINE_BREAKS.source}|${CONTROLS.source}|${HIDDEN_CHARACTERS.source}`, 'u');

function codePoint(char: string): string {
  return `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Line breaks of every kind as `\n`, so a quote that prefixes each line holds (CommonMark ends a
 * line at a lone CR, Unicode readers at NEL, LS and PS); characters that hide or reorder text for a
 * reviewer and control characters (terminal escapes among them) written out as `<U+XXXX>`: visible,
 * and since `<`, `U` and `+` stay ordinary characters, no author can write the character back.
 */
function visible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  return text.replace(OTHER_LINE_BREAKS, '\n').replace(HIDDEN_CHARACTERS, codePoint).replace(CONTROLS, codePoint);
}

/**
 * Every place a client preprocessing trigger could fire, so a person and a model still read the
 * text but no client expands or executes it. A space goes after each character matched here
 * (the lookahead names the character that would complete the trigger):
 * - a backtick before a bang, and a bang before a backtick or a brace: `` !`cmd` ``,
 *   ```` ```! ````, `!{cmd}`;
 * - an opening brace before another: `{{args}}`;
 * - a dollar before a letter, digit, underscore or brace: `$ARGUMENTS`, `$1`, `$name`, `${VAR}`;
 * - an at sign before a brace anywhere (`@{path}`), or before any visible character where it
 *   starts a word (`@path`; an e-mail address stays as it is): see `breaks`;
 * - a hash before a letter where it starts a word (`#file:x`, `#codebase`): see `breaks`;
 * - a closing bracket before a parenthesis: `[text](path)`;
 * - `<!`: `<!-- … -->`.
 * Each test looks only at the characters around the position, and a space satisfies none of them,
 * so the output of one pass has nothing left for the next. Every alternative starts with a fixed
 * character, so a text without any of them is scanned once and returned as it is.
 */
const TRIGGER = /`(?=!)|!(?=[`{])|\{(?=\{)|\$(?=[\p{L}\p{N}_{])|@(?=\S)|#(?=\p{L})|\](?=\()|<(?=!)/gu;
const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

/** Whether the character matched at `offset` gets a space after it (the word-start conditions of `@` and `#`). */
function breaks(char: string, offset: number, text: string): boolean {
  const before = offset > 0 ? text[offset - 1]! : '';
  if (char === '@') return text[offset + 1] === '{' || !WORD_CHARACTER.test(before);
  if (char === '#') return before !== '&' && !WORD_CHARACTER.test(before);
  return true;
}

/** Breaks every client preprocessing trigger with a space (see TRIGGER). */
function defuse(text: string): string {
  return text.replace(TRIGGER, (char: string, offset: number, whole: string) => (breaks(char, offset, whole) ? `${char} ` : char));
}

/** Author text that may span lines (an intent, a task): normalised, made visible, defused; lines joined by `\n`. */
export function inertBlock(text: string): string {
  const shown = visible(text);
  return defuse(shown.includes(MARK_OPEN) || shown.includes(MARK_CLOSE) ? shown.replace(MARKS, codePoint) : shown);
}

/** Author text on one line (a name, a description in a one-line field): like inertBlock, with all whitespace runs as one space. */
export function inertLine(text: string): string {
  return inertBlock(text).replace(/\s+/g, ' ').trim();
}

/**
 * A finished rendering, once more: the text in it is the renderer's own or already went through
 * inertBlock / inertLine (so it holds no hidden character or stray line break), but an author's
 * character next to one the renderer adds can still complete a trigger (a trailing `!` against the
 * backtick that closes its code span). This pass breaks those; the marker brackets, all the
 * renderer's by then, are left alone.
 */
export function inertDocument(text: string): string {
  return defuse(text);
}
