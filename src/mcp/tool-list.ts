import { randomBytes } from 'node:crypto';
import type { Catalog } from './render/types.js';

/**
 * The `tools` of a `tools/list` answer, made once per catalog and revision, with their JSON text.
 *
 * A catalog is cached and never changes (src/mcp/render/catalog.ts), so neither does the list a
 * client is given for it. Serializing that list was most of the work of a `tools/list` request
 * (docs/performance.md), so `answerText` writes a cached list's text into the answer as it was
 * serialized the first time, and `JSON.stringify` only writes the envelope around it. The text is
 * byte for byte what `JSON.stringify` of the whole answer gives (test/mcp/tool-list.test.ts).
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
/** The JSON text of each list handed out by `toolList`. */
const textOf = new WeakMap<readonly ListedTool[], string>();

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
  textOf.set(tools, JSON.stringify(tools));
  return tools;
}

/**
 * Stands in for a cached list while the envelope is serialized. Random per process, so that no
 * value a client sends (an id, a name) can be taken for it.
 */
const SLOT = `tool-list-${randomBytes(12).toString('hex')}`;
const SLOT_JSON = JSON.stringify(SLOT);

/** The JSON text of an answer the SDK sent: `JSON.stringify(message)`, with a cached tool list written from its text. */
export function answerText(message: unknown): string {
  const result = (message as { result?: { tools?: unknown } } | null)?.result;
  const tools = result?.tools;
  const text = Array.isArray(tools) ? textOf.get(tools) : undefined;
  if (text === undefined) return JSON.stringify(message);
  result!.tools = SLOT;
  let envelope: string;
  try {
    envelope = JSON.stringify(message);
  } finally {
    result!.tools = tools;
  }
  const at = envelope.indexOf(SLOT_JSON);
  return envelope.slice(0, at) + text + envelope.slice(at + SLOT_JSON.length);
}
