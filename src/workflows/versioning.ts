import type { WorkflowManifest } from '../manifest/types.js';

/**
 * Version labels of a workflow: dotted `major.minor.patch`, `1.0.0` at creation. An update
 * that changes the manifest records a new version:
 * - minor (1.0.0 → 1.1.0) when the shape of the workflow changes: a step added or removed, or a
 *   step's id, action or dependencies changed;
 * - patch (1.0.0 → 1.0.1) for any other manifest change (names, intent, parameters, adapters…).
 * Changes to the workflow's name, description, tags, category or visibility alone record none.
 */
export const INITIAL_VERSION = '1.0.0';

/** JSON with object keys sorted, so equal manifests compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function shapeOf(manifest: WorkflowManifest): string {
  return canonicalJson(manifest.steps.map((s) => [s.id, s.action, [...(s.depends_on ?? [])].sort()]));
}

/** The version after an update from `before` to `after`, or null when the manifest is unchanged. */
export function nextVersion(current: string, before: WorkflowManifest, after: WorkflowManifest): string | null {
  if (canonicalJson(before) === canonicalJson(after)) return null;
  const [major = 1, minor = 0, patch = 0] = current.split('.').map((n) => Number.parseInt(n, 10) || 0);
  return shapeOf(before) === shapeOf(after) ? `${major}.${minor}.${patch + 1}` : `${major}.${minor + 1}.0`;
}
