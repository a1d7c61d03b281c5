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
}

/** The JSON text kept for a validated manifest: the user's key order, compact. */
export function manifestTextOf(manifest: WorkflowManifest): string {
  return JSON.stringify(manifest);
}

/** The manifest as the user wrote it (or as jsonb kept it, for rows older than the text). */
export function writtenManifest(row: StoredManifest): WorkflowManifest {
  return (typeof row.manifestText === 'string' ? JSON.parse(row.manifestText) : row.manifest) as WorkflowManifest;
}
