/**
 * Text a person wrote, made inert for agents: line breaks normalised, hidden and control characters
 * written out, and every client preprocessing trigger broken. This is the character-level half of
 * the rendering of another author's text (src/mcp/render/untrusted.ts does the rest: which fields,
 * the provenance and its markers); it sits outside the faces so the install catalogs, a service,
 * can render the texts they carry with it too. docs/marketplace.md ("Trust") says what each rule
 * defuses and cites the clients' documentation.
 */
import { HIDDEN_CHARACTERS, LINE_BREAKS } from './text.js';

/** Open and close a provenance marker (src/mcp/render/untrusted.ts); inert text never contains them. */
export const MARK_OPEN = '\u27E6';
export const MARK_CLOSE = '\u27E7';

/** C0 and C1 controls but tab and line feed, and DEL. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const CONTROLS = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F]/gu;
/** The marker brackets, which only the renderer writes: in a person's text they are written out too. */
const MARKS = /[\u27E6\u27E7]/gu;

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
  return text.replace(LINE_BREAKS, '\n').replace(HIDDEN_CHARACTERS, codePoint).replace(CONTROLS, codePoint);
}

/**
 * Every place a client preprocessing trigger could fire, as the empty position where a space
 * breaks it, so a person and a model still read the text but no client expands or executes it:
 * - a bang touching a backtick (`` !`cmd` ``, ```` ```! ````) or an opening brace (`!{cmd}`);
 * - two opening braces (`{{args}}`);
 * - a dollar before a letter, digit, underscore or brace (`$ARGUMENTS`, `$1`, `$name`, `${VAR}`);
 * - an at sign before a brace anywhere (`@{path}`), or before any other visible character where it
 *   starts a word (`@path`; an e-mail address stays as it is);
 * - a hash before a letter where it starts a word (`#file:x`, `#codebase`);
 * - a closing bracket before a parenthesis (`[text](path)`);
 * - `<!` (`<!-- … -->`).
 * Each test looks only at the two characters around the position, and a space satisfies none of
 * them, so the output of one pass has no position left for the next.
 */
const BREAK_AT =
  /(?<=`)(?=!)|(?<=!)(?=[`{])|(?<=\{)(?=\{)|(?<=\$)(?=[\p{L}\p{N}_{])|(?<=@)(?=\{)|(?<=(?<![\p{L}\p{N}_])@)(?=\S)|(?<=(?<![\p{L}\p{N}_&])#)(?=\p{L})|(?<=\])(?=\()|(?<=<)(?=!)/gu;

/** Breaks every client preprocessing trigger with a space (see BREAK_AT). */
function defuse(text: string): string {
  return text.replace(BREAK_AT, ' ');
}

/** Author text that may span lines (an intent, a task): normalised, made visible, defused; lines joined by `\n`. */
export function inertBlock(text: string): string {
  return defuse(visible(text).replace(MARKS, codePoint));
}

/** Author text on one line (a name, a description in a one-line field): like inertBlock, with all whitespace runs as one space. */
export function inertLine(text: string): string {
  return inertBlock(text).replace(/\s+/g, ' ').trim();
}

/**
 * A finished rendering, once more: the author's text in it is already inert, and this pass
 * catches triggers formed across the boundary between author text and the renderer's own
 * characters (an author's trailing `!` against the backtick that closes its code span). The
 * marker brackets are left alone here: by then every one of them is the renderer's.
 */
export function inertDocument(text: string): string {
  return defuse(visible(text));
}
