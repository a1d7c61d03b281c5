import type { WorkflowManifest } from '../manifest/types.js';
import { canonicalJson, type VersionContent } from './digest.js';

/**
 * Version labels of a workflow: dotted `major.minor.patch`, `1.0.0` at creation. A version holds
 * everything an agent sees of the workflow (name, description, category, tags and manifest), so an
 * update that changes any of them records a new version:
 * - minor (1.0.0 → 1.1.0) when the shape of the workflow changes: a step added or removed, or a
 *   step's id, action or dependencies changed;
 * - patch (1.0.0 → 1.0.1) for any other change of the manifest (names, intent, parameters,
 *   adapters…) or of the name, description, category or tags.
 * A change of visibility or of fork permission alone records none: no agent sees them.
 */
export const INITIAL_VERSION = '1.0.0';

function shapeOf(manifest: WorkflowManifest): string {
  return canonicalJson(manifest.steps.map((s) => [s.id, s.action, [...(s.depends_on ?? [])].sort()]));
}

function describedBy(content: VersionContent): string {
  return canonicalJson([content.name, content.description, content.category, [...content.tags]]);
}

/** The version after an update from `before` to `after`, or null when nothing an agent sees changed. */
export function nextVersion(current: string, before: VersionContent, after: VersionContent): string | null {
  const sameManifest = canonicalJson(before.manifest) === canonicalJson(after.manifest);
  if (sameManifest && describedBy(before) === describedBy(after)) return null;
  const [major = 1, minor = 0, patch = 0] = current.split('.').map((n) => Number.parseInt(n, 10) || 0);
  return sameManifest || shapeOf(before.manifest) === shapeOf(after.manifest)
    ? `${major}.${minor}.${patch + 1}`
    : `${major}.${minor + 1}.0`;
}
