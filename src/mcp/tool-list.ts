import { randomBytes } from 'node:crypto';
import { ProtocolError } from '@modelcontextprotocol/server';
import { JSONRPC } from './protocol.js';
import type { Catalog, RenderedPrompt } from './render/types.js';

/**
 * The `tools` of a `tools/list` answer, made once per catalog and revision, and cut into pages as
 * they are asked for.
 * A catalog is cached and never changes (src/mcp/render/catalog.ts), so neither does the list a
 * client is given for it, nor its pages: each page is kept with its JSON text, and `listAnswerText`
 * writes that text into the answer instead of serializing the page again on every request
 * (docs/decisions.md, "Performance").
 */

/** What every plan tool declares: it only reads the deployment's workflows, so clients may run it without asking. */
const TOOL_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object' };
  outputSchema?: { type: 'object' };
  annotations: typeof TOOL_ANNOTATIONS;
}

interface Lists {
  /** The list as the 2025-03-26 revision has it; the next, with the fields MCP added in 2025-06-18 (titles, output schemas). */
  plain?: ListedTool[];
  titled?: ListedTool[];
}

/** Per catalog: dropped with it when the catalog cache lets it go. */
const listsOf = new WeakMap<Catalog, Lists>();

/** The tools of `catalog` as `tools/list` answers them; `titled` from 2025-06-18 on. The array is shared: callers only read it. */
export function toolList(catalog: Catalog, titled: boolean): ListedTool[] {
  let lists = listsOf.get(catalog);
  if (!lists) listsOf.set(catalog, (lists = {}));
  const key = titled ? 'titled' : 'plain';
  const known = lists[key];
  if (known) return known;
  const tools = catalog.tools.map((t) => ({
    name: t.name,
    ...(titled ? { title: t.title } : {}),
    description: t.description,
    inputSchema: t.inputSchema as { type: 'object' },
    ...(titled ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
    annotations: TOOL_ANNOTATIONS,
  }));
  lists[key] = tools;
  return tools;
}

/**
 * How much one `tools/list` or `prompts/list` answer holds (docs/mcp.md, "Lists come in pages"):
 * at most `maxItems` entries and, past the first entry, at most `maxBytes` of their JSON text. A
 * longer list goes on in further pages, named by the `nextCursor` of the page before, as MCP's
 * pagination has it; clients (the official SDKs included) ask for the next page with that cursor.
 */
export const LIST_PAGE = { maxItems: 100, maxBytes: 1024 * 1024 } as const;

/**
 * A list cut into pages as they are asked for: a page's bounds are found by measuring its entries'
 * JSON text, page after page, and kept. A client that reads the first page costs at most one
 * page's serialization, however long the list (a large deployment's catalog holds thousands).
 */
interface Paged<T> {
  items: readonly T[];
  /** `ends[k]`: the index after page k's last entry, for the pages measured so far. */
  ends: number[];
  /** `pages[k]`: page k's entries, the one array every answer with that page is given. */
  pages: T[][];
}

function pagedList<T>(items: readonly T[]): Paged<T> {
  return { items, ends: [], pages: [] };
}

/** The JSON text of each page handed out, as `JSON.stringify` writes it. */
const pageText = new WeakMap<readonly unknown[], string>();

/** Where page `page` ends, measuring the pages before it first; null when the list has no such page. */
function endOf<T>(paged: Paged<T>, page: number): number | null {
  const { items, ends } = paged;
  while (ends.length <= page) {
    const start = ends.length > 0 ? ends[ends.length - 1]! : 0;
    // The first page always exists (it may be empty); a later one only while entries remain.
    if (ends.length > 0 && start >= items.length) return null;
    let end = start;
    let bytes = 0;
    const texts: string[] = [];
    while (end < items.length) {
      const text = JSON.stringify(items[end]);
      if (end > start && (end - start >= LIST_PAGE.maxItems || bytes + text.length + 1 > LIST_PAGE.maxBytes)) break;
      texts.push(text);
      bytes += text.length + 1;
      end += 1;
    }
    const page = items.slice(start, end);
    pageText.set(page, `[${texts.join(',')}]`);
    ends.push(end);
    paged.pages.push(page);
  }
  return ends[page]!;
}

/** A cursor names a page of one kind of list; it is opaque to clients. */
function cursorOf(kind: string, page: number): string {
  return Buffer.from(`${kind}:${page}`).toString('base64url');
}

/** The page a request asks for: the first without a cursor, the one its cursor names, or -32602. */
function pageAsked<T>(paged: Paged<T>, kind: string, cursor: unknown): { items: T[]; nextCursor?: string } {
  let index = 0;
  if (cursor !== undefined) {
    const match =
      typeof cursor === 'string' && cursor.length <= 64 ? /^(\w+):(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString()) : null;
    index = match && match[1] === kind ? Number(match[2]) : -1;
    // Page 0 is never named by a cursor; a list that shrank since the cursor was given ends sooner.
    if (index < 1 || cursor !== cursorOf(kind, index) || endOf(paged, index) === null)
      throw new ProtocolError(
        JSONRPC.INVALID_PARAMS,
        'Invalid params: unknown cursor (pass the nextCursor of the previous page, or none for the first)',
      );
  }
  const end = endOf(paged, index)!;
  const items = paged.pages[index]!;
  return end < paged.items.length ? { items, nextCursor: cursorOf(kind, index + 1) } : { items };
}

const toolPagesOf = new WeakMap<ListedTool[], Paged<ListedTool>>();

/** One page of `tools/list`: the tools, with `nextCursor` when more follow. */
export function toolPage(catalog: Catalog, titled: boolean, cursor: unknown): { tools: ListedTool[]; nextCursor?: string } {
  const tools = toolList(catalog, titled);
  let paged = toolPagesOf.get(tools);
  if (!paged) toolPagesOf.set(tools, (paged = pagedList(tools)));
  const { items, nextCursor } = pageAsked(paged, titled ? 'tools' : 'tools0', cursor);
  return nextCursor ? { tools: items, nextCursor } : { tools: items };
}

interface ListedPrompt {
  name: string;
  title?: string;
  description: string;
  arguments: RenderedPrompt['arguments'];
}

const promptPagesOf = new WeakMap<Catalog, { plain?: Paged<ListedPrompt>; titled?: Paged<ListedPrompt> }>();

/** One page of `prompts/list`, paged as the tools are. */
export function promptPage(catalog: Catalog, titled: boolean, cursor: unknown): { prompts: ListedPrompt[]; nextCursor?: string } {
  let known = promptPagesOf.get(catalog);
  if (!known) promptPagesOf.set(catalog, (known = {}));
  const key = titled ? 'titled' : 'plain';
  let paged = known[key];
  if (!paged) {
    const prompts = catalog.prompts.map((p) => ({
      name: p.name,
      ...(titled ? { title: p.title } : {}),
      description: p.description,
      arguments: p.arguments,
    }));
    paged = known[key] = pagedList(prompts);
  }
  const { items, nextCursor } = pageAsked(paged, titled ? 'prompts' : 'prompts0', cursor);
  return nextCursor ? { prompts: items, nextCursor } : { prompts: items };
}

/**
 * Stands in for a page while the answer around it is serialized. Random per process, so that no
 * value a client sends (an id, a cursor) can be taken for it.
 */
const SLOT = `list-page-${randomBytes(12).toString('hex')}`;
const SLOT_JSON = JSON.stringify(SLOT);

/**
 * The JSON text of a message the SDK sent: `JSON.stringify(message)`, byte for byte, with a page of
 * `tools/list` or `prompts/list` written from its kept text (test/mcp/tool-list.test.ts).
 */
export function listAnswerText(message: unknown): string {
  const result = (message as { result?: Record<string, unknown> } | null)?.result;
  const key = result && Array.isArray(result.tools) ? 'tools' : result && Array.isArray(result.prompts) ? 'prompts' : null;
  const page = key ? (result![key] as unknown[]) : undefined;
  const text = page ? pageText.get(page) : undefined;
  if (text === undefined) return JSON.stringify(message);
  result![key!] = SLOT;
  let envelope: string;
  try {
    envelope = JSON.stringify(message);
  } finally {
    result![key!] = page;
  }
  const at = envelope.indexOf(SLOT_JSON);
  return envelope.slice(0, at) + text + envelope.slice(at + SLOT_JSON.length);
}
