/**
 * The install artefacts of a deployment (its workflows rendered as skills, the plugin archive and
 * the skills index), built once per content and kept by this instance (docs/install.md,
 * "Artefacts and their bounds").
 *
 * Rendering, zipping and hashing cost time on the event loop in proportion to the workflows; the
 * catalogs of an anonymous deployment can be fetched by anyone, as often as they like. So the
 * artefacts are kept under a key computed from what they are built of (the deployment's fields,
 * its workflows' ids, versions and update times, names and adapters, the base URL: all read with the
 * deployment itself, before any rendering) and rebuilt only when that key changes. An entry is never
 * stale: different content is a different key; old keys simply fall out.
 *
 * The cache wraps the builders (the skill renderer and catalogs.ts); it never looks inside their text.
 * It is bounded in entries and bytes, least recently used out first. A deployment whose archive
 * (its skills, with plugin.json) would hold more than ARCHIVE_MAX_BYTES gets no archive and no
 * skills catalog: the refusal is what is kept for it, so asking again costs nothing.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { pluginPackageOf, skillsIndexOf, type PluginPackage, type SkillDocument } from './catalogs.js';
import type { InstallTarget } from './clients/index.js';

/** The most a plugin archive may hold (and so the skills of one deployment, which it holds): 8 MiB. */
const ARCHIVE_MAX_BYTES = 8 * 1024 * 1024;
/** Deployments whose artefacts one instance keeps. */
const CACHE_MAX_ENTRIES = 256;
/** Bytes of artefacts one instance keeps (skill texts, archives, indexes). */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** What a refusal costs in the byte budget: it holds only a message. */
const REFUSAL_BYTES = 1024;

/** What a deployment's catalogs are made of. */
export interface InstallArtifacts {
  skills: readonly SkillDocument[];
  /** The plugin archive, or the refusal to build one over the bound. */
  plugin: PluginPackage;
  /** The Agent Skills discovery index. */
  skillsIndex: Record<string, unknown>;
}

/** Whether the artefacts were found, built, or refused (over the bound). */
export type ArtifactOutcome = 'hit' | 'miss' | 'refused';

type Entry = { artifacts: InstallArtifacts; bytes: number } | { refusal: AppError; bytes: number };

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function tooLarge(bytes: number): AppError {
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `this deployment's workflows make an archive of at least ${mebibytes(bytes)}, over the ${mebibytes(ARCHIVE_MAX_BYTES)} an install archive or skills catalog may hold: split it into smaller deployments (its tool endpoint serves it as it is)`,
    { reason: 'install_archive_too_large', bytes, maxBytes: ARCHIVE_MAX_BYTES },
  );
}

/** The key of a deployment's content: a digest of everything the artefacts are built from. */
export function contentKeyOf(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

export function createArtifactCache(options: { onLookup?: (outcome: ArtifactOutcome) => void } = {}) {
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recently used first.
  const entries = new Map<string, Entry>();
  const building = new Map<string, Promise<Entry>>();
  let bytes = 0;

  function keep(key: string, entry: Entry): void {
    if (entry.bytes > CACHE_MAX_BYTES) return;
    const before = entries.get(key);
    if (before) {
      entries.delete(key);
      bytes -= before.bytes;
    }
    entries.set(key, entry);
    bytes += entry.bytes;
    while (entries.size > CACHE_MAX_ENTRIES || bytes > CACHE_MAX_BYTES) {
      const oldest = entries.entries().next();
      if (oldest.done) break;
      entries.delete(oldest.value[0]);
      bytes -= oldest.value[1].bytes;
    }
  }

  async function build(target: InstallTarget, render: () => Promise<SkillDocument[]>): Promise<Entry> {
    const skills = await render();
    const size = skills.reduce((n, s) => n + Buffer.byteLength(s.text, 'utf8'), 0);
    if (size > ARCHIVE_MAX_BYTES) return { refusal: tooLarge(size), bytes: REFUSAL_BYTES };
    const plugin = pluginPackageOf(target, skills);
    // The archive adds headers and plugin.json to the skills: the bound is on what is served.
    if (plugin.zip.length > ARCHIVE_MAX_BYTES) return { refusal: tooLarge(plugin.zip.length), bytes: REFUSAL_BYTES };
    const skillsIndex = skillsIndexOf(skills);
    return { artifacts: { skills, plugin, skillsIndex }, bytes: size + plugin.zip.length + JSON.stringify(skillsIndex).length };
  }

  function served(entry: Entry): InstallArtifacts {
    if ('refusal' in entry) throw entry.refusal;
    return entry.artifacts;
  }

  return {
    /**
     * The artefacts of the content named `key`: kept ones, or built from `target` and the skills
     * `render` gives (at most one build per key at a time). The target's key, if any, is not part
     * of the artefacts (the archive asks for the key; only the marketplace's URLs carry it).
     */
    async artifactsOf(key: string, target: InstallTarget, render: () => Promise<SkillDocument[]>): Promise<InstallArtifacts> {
      const found = entries.get(key);
      if (found) {
        entries.delete(key);
        entries.set(key, found);
        options.onLookup?.('refusal' in found ? 'refused' : 'hit');
        return served(found);
      }
      let pending = building.get(key);
      if (!pending) {
        pending = build(target, render).finally(() => building.delete(key));
        building.set(key, pending);
        const entry = await pending;
        keep(key, entry);
        options.onLookup?.('refusal' in entry ? 'refused' : 'miss');
        return served(entry);
      }
      const entry = await pending;
      options.onLookup?.('refusal' in entry ? 'refused' : 'hit');
      return served(entry);
    },
  };
}
