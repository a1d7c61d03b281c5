import { writtenManifest, type StoredManifest } from '../manifest/stored.js';

/**
 * What changed between two recorded versions of a workflow, for a subscriber deciding whether to
 * accept an update. The diff reads whatever agent-visible content a version row holds: the
 * manifest always, and the name, description, category and tags where the row records them, so
 * it covers each of them as soon as a version does.
 */

export interface VersionChange {
  /** Where: `manifest.intent`, `manifest.steps[review].name`, `description`… Steps are named by their id. */
  path: string;
  change: 'added' | 'removed' | 'changed';
  /** The value in the subscribed version (null when added). */
  before: unknown;
  /** The value in the newer version (null when removed). */
  after: unknown;
}

/** The most changes listed: beyond it the dashboard's line diff of the manifests tells the rest. */
const MAX_CHANGES = 200;

/** Agent-visible columns a version row may hold besides its manifest, in the order they are listed. */
const VERSION_TEXT_FIELDS = ['name', 'description', 'category', 'tags'] as const;

type VersionRow = StoredManifest & Partial<Record<(typeof VERSION_TEXT_FIELDS)[number], unknown>>;

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/** Arrays of objects that each carry a distinct string `id` (steps) are compared by id, not position. */
function byId(values: unknown[]): Map<string, unknown> | null {
  const map = new Map<string, unknown>();
  for (const v of values) {
    if (!isObject(v) || typeof v.id !== 'string' || map.has(v.id)) return null;
    map.set(v.id, v);
  }
  return map;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  return value;
}

function walk(path: string, before: unknown, after: unknown, out: VersionChange[]): void {
  if (out.length >= MAX_CHANGES || same(before, after)) return;
  if (before === undefined) return void out.push({ path, change: 'added', before: null, after });
  if (after === undefined) return void out.push({ path, change: 'removed', before, after: null });
  if (isObject(before) && isObject(after)) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !(k in before))];
    for (const k of keys) walk(`${path}.${k}`, before[k], after[k], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const [a, b] = [byId(before), byId(after)];
    if (a && b) {
      const ids = [...a.keys(), ...[...b.keys()].filter((k) => !a.has(k))];
      for (const id of ids) walk(`${path}[${id}]`, a.get(id), b.get(id), out);
      return;
    }
  }
  out.push({ path, change: 'changed', before, after });
}

/** The changes from the version `from` to the version `to`, at most MAX_CHANGES. */
export function versionChanges(from: VersionRow, to: VersionRow): VersionChange[] {
  const out: VersionChange[] = [];
  for (const field of VERSION_TEXT_FIELDS) {
    if (field in from && field in to) walk(field, from[field], to[field], out);
  }
  walk('manifest', writtenManifest(from), writtenManifest(to), out);
  return out;
}
