import type { WorkflowManifest } from './types.js';

/**
 * A manifest is stored twice: as jsonb for the database to index and search (PostgreSQL's jsonb
 * keeps keys sorted by length, then bytes) and as the JSON text the user wrote, keys in their
 * order, which every answer shows. See docs/decisions.md, "Manifests as written".
 */

export interface StoredManifest {
  manifest: unknown;
  /** Null in rows written before the text was kept. */
  manifestText?: string | null;
  /** The YAML text as sent, when the manifest was sent as YAML (docs/manifest.md, "As written"). */
  manifestYaml?: string | null;
}

/** At most this many bytes (UTF-8) of YAML text are kept, as for the JSON text (docs/manifest.md, "Limits"). */
export const MANIFEST_YAML_MAX_BYTES = 262_144;

/**
 * The YAML text to keep for a manifest sent as `input`: the string itself when it is YAML, null
 * for a manifest sent as JSON data or as a JSON text (whose text is kept as JSON).
 */
export function yamlTextOf(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  try {
    JSON.parse(input);
    return null;
  } catch {
    return input;
  }
}

/** The JSON text kept for a validated manifest: the user's key order, compact. */
export function manifestTextOf(manifest: WorkflowManifest): string {
  return JSON.stringify(manifest);
}

/** The manifest as the user wrote it (or as jsonb kept it, for rows older than the text). */
export function writtenManifest(row: StoredManifest): WorkflowManifest {
  return (typeof row.manifestText === 'string' ? JSON.parse(row.manifestText) : row.manifest) as WorkflowManifest;
}

/**
 * The manifest in the format it was written in, for an editor to show it as its author wrote it:
 * YAML sent as YAML exactly as sent (comments and layout kept), JSON as JSON with the author's key
 * order, indented by two spaces (the service keeps JSON compact, so its own layout is not kept).
 */
export function manifestSourceOf(row: StoredManifest): { format: 'yaml' | 'json'; text: string } {
  if (typeof row.manifestYaml === 'string') return { format: 'yaml', text: row.manifestYaml };
  return { format: 'json', text: `${JSON.stringify(writtenManifest(row), null, 2)}\n` };
}
