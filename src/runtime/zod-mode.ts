// First: every zod schema built after this import, the MCP SDK's among them, gets a validator
// compiled on its first use (zod's documented global mode; docs/decisions.md, "Performance").
import 'zod/compile';
import { config, type core } from 'zod';

/**
 * How zod runs in the service, set before any module that builds a schema is loaded (src/app.ts
 * imports this first): the MCP SDK validates every message with zod.
 *
 * Compiled validators: above.
 *
 * No reference-cycle support. zod's classic build gives every recursive schema (the SDK's JSON
 * values: `_meta`, tool arguments, structured content) a memoizer so that an input containing a
 * reference cycle parses instead of recursing forever; it records each object it parses in
 * WeakMaps of the parse. Everything zod sees here is a message parsed from JSON text or an answer
 * built by the service, and neither can hold a cycle. Those WeakMap entries outlive young
 * collections, so under load they were promoted in bulk and cleared only by full
 * collections (docs/decisions.md, "Performance"). `memoizer` is zod's documented setting for this, read when a
 * schema is built; its no-op form is what `zod/mini` has by default.
 */
const NO_CYCLE_SUPPORT: core.$ZodMemoizer = {
  attach() {},
  guard() {},
  alloc: (_inst, _payload, empty) => empty,
};
config({ memoizer: NO_CYCLE_SUPPORT });
