/**
 * The adapters (spec 2.8): the one list. Adding an adapter is an entry here and a renderer
 * (src/mcp/render/). Everything else derives from this list (the `Adapter` type, the GraphQL enum
 * and the per-adapter usage counts, the client-name mapping, the step-reference checks, the
 * dashboard's labels) or fails when it is missed: the renderer registry and the manifest's settings
 * types are keyed by `Adapter` (a compile error), and a test holds the JSON Schema's `adapters`
 * section to this list.
 *
 * Pure data with no imports: the dashboard's bundle and the CLI read it as well.
 */

export interface AdapterDefinition {
  /** The clients it is written for, as the dashboard names them. */
  clients: string;
  /**
   * The `clientInfo.name` prefixes that select it on the tool endpoint, compared lower-cased with
   * everything but letters and digits removed. None: only an address or the default selects it.
   */
  clientNames: readonly string[];
  /** The key of `adapters.<name>.config` whose keys must be step ids of the manifest, if any. */
  stepMap?: string;
}

export const ADAPTER_DEFINITIONS = {
  adapter_one: { clients: 'Claude Code', clientNames: ['claudecode'], stepMap: 'tools_per_step' },
  adapter_two: { clients: 'Cursor', clientNames: ['cursor'] },
  adapter_three: { clients: 'other clients', clientNames: [], stepMap: 'functions_per_step' },
} as const satisfies Record<string, AdapterDefinition>;

export type Adapter = keyof typeof ADAPTER_DEFINITIONS;

/** Every adapter, in the canonical order (the order of the definitions). */
export const ADAPTERS = Object.keys(ADAPTER_DEFINITIONS) as readonly Adapter[];

const ADAPTER_NAMES: ReadonlySet<string> = new Set(ADAPTERS);

/** Whether a value is one of the adapters; a set lookup, as the tool endpoint asks it of every request. */
export function isAdapter(value: unknown): value is Adapter {
  return typeof value === 'string' && ADAPTER_NAMES.has(value);
}

/**
 * Each `clientInfo.name` prefix with the adapter it selects, in the order of the list: what
 * the tool endpoint matches a client's name against (src/mcp/protocol.ts).
 */
export const CLIENT_NAME_PREFIXES: ReadonlyArray<readonly [string, Adapter]> = ADAPTERS.flatMap((a) => {
  const definition: AdapterDefinition = ADAPTER_DEFINITIONS[a];
  return definition.clientNames.map((prefix) => [prefix, a] as const);
});

/** The adapter of a client whose name selects none, and the one an Agent Skill is written for unless asked. */
export const DEFAULT_ADAPTER: Adapter = 'adapter_three';

/** The adapters whose settings map step ids, with the key of that map (the semantic check holds its keys to the steps). */
export const STEP_MAPS: ReadonlyArray<readonly [Adapter, string]> = ADAPTERS.flatMap((a) => {
  const definition: AdapterDefinition = ADAPTER_DEFINITIONS[a];
  return definition.stepMap ? [[a, definition.stepMap] as const] : [];
});
