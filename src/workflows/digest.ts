import { createHash } from 'node:crypto';
import { pseudonymOf } from '../marketplace/identity.js';
import type { WorkflowManifest } from '../manifest/types.js';

/**
 * The content digest of a workflow version: `sha256:<hex>` over the canonical form of everything
 * an agent is shown of that version (docs/marketplace.md, "Versions, pins and content digests").
 * It names the content, so two versions with the same content have the same digest and a
 * subscriber can tell that what their agent is served is what they reviewed.
 *
 * Covered, as one JSON object with its keys (and every object's keys within) in UTF-16 code-unit
 * order (JavaScript's default sort), without whitespace, after the line `workflow-version-digest/1`:
 * - `workflowId`: skills and tools are named after it;
 * - `version`: the label, shown in every rendering;
 * - `author`: the author's stable handle (`pseudonymOf(ownerId)`), which never changes. The display
 *   name is not covered: the author may change it at any time, and a digest written once must stay
 *   true; renderings show it beside the handle;
 * - `name`, `description`, `category`, `tags` (in their order) and `manifest` (its content; the key
 *   order it was written in is not content).
 * Not covered: visibility, fork permission, statistics and timestamps, which no agent sees.
 */
const DIGEST_DOMAIN = 'workflow-version-digest/1';

/** What an agent sees of one version of a workflow: the fields a version records. */
export interface VersionContent {
  name: string;
  description: string;
  category: string;
  tags: readonly string[];
  manifest: WorkflowManifest;
}

/** JSON with object keys sorted, so equal content compares and hashes equal whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The digest of `content` at `version` of workflow `workflowId`, whose author is `ownerId`. */
export function versionDigest(workflowId: string, ownerId: string, version: string, content: VersionContent): string {
  const canonical = canonicalJson({
    workflowId,
    version,
    author: pseudonymOf(ownerId),
    name: content.name,
    description: content.description,
    category: content.category,
    tags: [...content.tags],
    manifest: content.manifest,
  });
  return `sha256:${createHash('sha256').update(`${DIGEST_DOMAIN}\n${canonical}`, 'utf8').digest('hex')}`;
}
