/**
 * A manifest written as YAML (or JSON, which YAML reads too), read into JSON data in time linear
 * in its length, with its size, nesting and node count bounded before the document is built.
 *
 * The yaml package's own duplicate-key check (`uniqueKeys`) compares each key of a mapping with
 * every earlier one, and its composer recurses once per level of nesting: both let one request of
 * a few hundred kilobytes hold the event loop for seconds. So the text is measured first, then read
 * into the package's syntax tree (a loop with a stack of its own, linear), whose depth and node
 * count are checked before the composer runs; duplicate keys are found afterwards with one set
 * per mapping. Shared with the dashboard, which checks a manifest as it is typed.
 */
import {
  Composer,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  YAMLParseError,
  type CST,
  type Document,
  type Node,
} from 'yaml';
import { MANIFEST_LIMITS } from './limits.js';

/** What the reader accepts before it builds a document (docs/manifest.md, "YAML"). */
export const YAML_LIMITS = {
  /** Bytes (UTF-8) of the text, as for a manifest's JSON text. */
  maxBytes: MANIFEST_LIMITS.maxBytes,
  /** As for JSON bodies (src/http/body.ts): deeper data would overflow the recursive checks that follow. */
  maxDepth: 100,
  /** Scalars (keys included), mappings, sequences and aliases, counted as written. */
  maxNodes: 5_000,
  /** Expanding more aliases than this is what "billion laughs" documents do; real manifests need few. */
  maxAliases: 100,
} as const;

export interface YamlProblem {
  message: string;
  line?: number;
  column?: number;
}

/** Text that is not YAML (or not JSON data), or over a limit: each problem with its line and column when known. */
export class YamlProblems extends Error {
  constructor(
    readonly problems: YamlProblem[],
    headline = `the manifest is not valid YAML: ${withPosition(problems[0]!)}`,
  ) {
    super(headline);
  }
}

const encoder = new TextEncoder();

function refuseOversized(input: string): void {
  const bytes = encoder.encode(input).length;
  if (bytes <= YAML_LIMITS.maxBytes) return;
  const message = `the manifest is ${bytes} bytes of text; at most ${YAML_LIMITS.maxBytes} are read`;
  throw new YamlProblems([{ message }], message);
}

/**
 * A problem at `offset` of the text, with its line and column as the yaml package counts them. The
 * message itself carries no position: a problem's line and column are its own fields, and a
 * headline says the position once (withPosition).
 */
function at(lines: LineCounter, offset: number, message: string): YamlProblem {
  const { line, col } = lines.linePos(offset);
  return { message, line, column: col };
}

function withPosition(problem: YamlProblem): string {
  return problem.line ? `${problem.message} at line ${problem.line}, column ${problem.column ?? 1}` : problem.message;
}

function tooDeep(lines: LineCounter, offset: number): YamlProblems {
  const problem = at(lines, offset, `the manifest nests more than ${YAML_LIMITS.maxDepth} levels deep`);
  return new YamlProblems([problem], withPosition(problem));
}

function tooMany(lines: LineCounter, offset: number): YamlProblems {
  const message = `the manifest has more than ${YAML_LIMITS.maxNodes} keys, values and items`;
  return new YamlProblems([at(lines, offset, message)], `${message}; at most ${YAML_LIMITS.maxNodes} are read`);
}

/**
 * The text's syntax tree, read token by token: the parser keeps one entry a level on a stack of
 * its own, so nesting that flow collections (`[[[[`) or indicators on one line (`- - - -`) open
 * is counted from the tokens and refused as it passes the limit, before that work is done, and so
 * are scalars past the node limit. Nesting
 * by indentation costs its square in bytes, so the text's size bounds it; checkShape counts it.
 */
function syntaxTree(input: string, lines: LineCounter): CST.Token[] {
  const parser = new Parser(lines.addNewLine);
  const tokens: CST.Token[] = [];
  lines.addNewLine(0);
  let offset = 0;
  let flow = 0;
  let onLine = 0;
  let scalarNext = false;
  let scalars = 0;
  for (const lexeme of new Lexer().lex(input)) {
    const first = lexeme.charCodeAt(0);
    // Plain and block scalars come after a mark; quoted scalars and aliases are one lexeme each.
    if (lexeme === '\x1f' || first === 0x22 || first === 0x27 || first === 0x2a) {
      scalars += 1;
      if (scalars > YAML_LIMITS.maxNodes) throw tooMany(lines, offset);
    }
    if (scalarNext) {
      // A scalar's own text (a plain or block scalar may well be "[").
      scalarNext = false;
    } else if (lexeme === '\x1f') {
      scalarNext = true;
    } else if (lexeme === '[' || lexeme === '{') {
      flow += 1;
      if (flow + onLine > YAML_LIMITS.maxDepth) throw tooDeep(lines, offset);
    } else if (lexeme === ']' || lexeme === '}') {
      flow = Math.max(0, flow - 1);
    } else if (lexeme === '\n' || lexeme === '\r\n') {
      onLine = 0;
    } else if (flow === 0 && (lexeme === '-' || lexeme === '?' || lexeme === ':')) {
      onLine += 1;
      if (onLine > YAML_LIMITS.maxDepth) throw tooDeep(lines, offset);
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The lexer's marks of a document, a scalar and a flow error's end are not text of the source.
    if (lexeme !== '\x02' && lexeme !== '\x1f' && lexeme !== '\x18') offset += lexeme.length;
  }
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

/** Checks the syntax tree's nesting and node count, without recursion, before the composer (which recurses once per level) runs. */
function checkShape(tokens: readonly CST.Token[], lines: LineCounter): void {
  const stack: Array<{ token: CST.Token; depth: number }> = [];
  for (const token of tokens) if (token.type === 'document' && token.value) stack.push({ token: token.value, depth: 1 });
  let nodes = 0;
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { token, depth } = next;
    nodes += 1;
    if (nodes > YAML_LIMITS.maxNodes) throw tooMany(lines, token.offset);
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth > YAML_LIMITS.maxDepth) throw tooDeep(lines, token.offset);
    for (const item of token.items) {
      if (item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
}

/** The JSON key a mapping's key becomes (scalar keys only: the others are refused by toJsonData). */
function keyOf(key: unknown, doc: Document.Parsed): string | null {
  const node = isAlias(key) ? key.resolve(doc) : key;
  return isScalar(node) ? String(node.value) : null;
}

/**
 * Duplicate keys, found with one set per mapping (keys that JSON would merge count as the same:
 * `1` and `"1"`). Each node is visited once: an alias is not followed, its target is visited where
 * it is written.
 */
function duplicateKeys(doc: Document.Parsed, lines: LineCounter): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const stack: unknown[] = [doc.contents];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = keyOf(pair.key, doc);
        if (key !== null) {
          if (seen.has(key)) problems.push(at(lines, (pair.key as Node).range?.[0] ?? 0, 'Map keys must be unique'));
          seen.add(key);
        }
        stack.push(pair.key, pair.value);
      }
    }
  }
  return problems.sort((a, b) => a.line! - b.line! || a.column! - b.column!);
}

/**
 * YAML has values JSON lacks (binary, infinities, maps with non-scalar keys); a manifest
 * must stay plain JSON data so that its JSON and YAML forms say the same thing. `path` and
 * `ancestors` are the way down to `value`, shared by the whole walk (each call puts back what it adds).
 */
function toJsonData(value: unknown, path: Array<string | number>, ancestors: Set<unknown>): unknown {
  const where = () =>
    path.length === 0 ? 'the manifest' : path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new YamlProblems([{ message: `${where()} is ${String(value)}, which JSON cannot represent` }]);
  }
  if (typeof value !== 'object') {
    throw new YamlProblems([{ message: `${where()} holds a value that is not JSON data (a YAML tag such as !!binary?)` }]);
  }
  // An alias to a node that contains it (`a: &a [*a]`) makes a cycle JSON cannot hold.
  if (ancestors.has(value)) throw new YamlProblems([{ message: `${where()} is an alias of a node that contains it` }]);
  // Aliases can nest what they expand deeper than the text is written.
  if (path.length >= YAML_LIMITS.maxDepth)
    throw new YamlProblems([{ message: `${where()} nests more than ${YAML_LIMITS.maxDepth} levels deep` }]);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i += 1) {
        path.push(i);
        out.push(toJsonData(value[i], path, ancestors));
        path.pop();
      }
      return out;
    }
    if (value instanceof Map) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of value) {
        if (k !== null && typeof k === 'object') {
          throw new YamlProblems([{ message: `${where()} has a key that is not a scalar; keys must be strings` }]);
        }
        const key = String(k);
        path.push(key);
        // defineProperty keeps a "__proto__" key an ordinary property, as JSON.parse does.
        Object.defineProperty(out, key, { value: toJsonData(v, path, ancestors), enumerable: true, writable: true, configurable: true });
        path.pop();
      }
      return out;
    }
  } finally {
    ancestors.delete(value);
  }
  throw new YamlProblems([{ message: `${where()} holds a value that is not JSON data (a YAML tag such as !!binary?)` }]);
}

/** Reads a manifest written as YAML into JSON data; throws YamlProblems for text that is not, or is over a limit. */
export function readManifestText(input: string): unknown {
  refuseOversized(input);
  const lines = new LineCounter();
  const tokens = syntaxTree(input, lines);
  checkShape(tokens, lines);

  const composer = new Composer({ uniqueKeys: false });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, input.length)) {
    if (!doc) {
      doc = next;
    } else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
      break;
    }
  }
  const parsed = doc!;
  if (parsed.errors.length > 0) {
    throw new YamlProblems(parsed.errors.map((e) => (e.pos[0] === -1 ? { message: e.message } : at(lines, e.pos[0], e.message))));
  }
  const duplicates = duplicateKeys(parsed, lines);
  if (duplicates.length > 0) throw new YamlProblems(duplicates);

  let data: unknown;
  try {
    data = parsed.toJS({ maxAliasCount: YAML_LIMITS.maxAliases, mapAsMap: true });
  } catch (err) {
    throw new YamlProblems([{ message: err instanceof Error ? err.message : String(err) }]);
  }
  return toJsonData(data, [], new Set());
}
