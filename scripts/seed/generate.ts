/**
 * Builds a realistic marketplace in memory, deterministically from a seed: users, public
 * workflows with versions, forks, subscriptions and reviews, with every counter
 * (subscribersCount, forksCount, ratingSum, ratingCount) equal to what the rows imply.
 */
import type { Prisma } from '@prisma/client';
import { ADAPTERS, OUTPUT_TYPES, type StepAction, type WorkflowManifest } from '../../src/manifest/types.js';
import { validateManifest } from '../../src/manifest/validate.js';
import {
  BENEFITS,
  CATEGORIES,
  CLOSING,
  FIRST_NAMES,
  LAST_NAMES,
  NAME_PREFIXES,
  OPENING,
  REVIEW_DETAILS,
  REVIEW_OPENERS,
  STACKS,
  STEP_LIBRARY,
  WORK,
  type Stack,
} from './words.js';

const SEED_ISSUER = 'urn:workflow-service:seed';

export interface SeedOptions {
  workflows: number;
  users: number;
  seed: number;
  now: Date;
}

export interface Dataset {
  users: Prisma.UserCreateManyInput[];
  plans: Prisma.BillingSubscriptionCreateManyInput[];
  workflows: Prisma.WorkflowCreateManyInput[];
  versions: Prisma.WorkflowVersionCreateManyInput[];
  library: Prisma.LibraryEntryCreateManyInput[];
  reviews: Prisma.ReviewCreateManyInput[];
}

/** mulberry32: small, fast and good enough for test data. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  /** Skewed towards small indexes: a few items get most of the attention. */
  const skewed = (n: number, power = 2.2) => Math.min(n - 1, Math.floor(n * next() ** power));
  return { next, int, pick, skewed };
}

type Rng = ReturnType<typeof rng>;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
function idMaker(r: Rng) {
  return (prefix: string) => {
    let out = '';
    for (let i = 0; i < 20; i += 1) out += ALPHABET[r.int(32)];
    return `${prefix}_${out}`;
  };
}

const DAY = 86_400_000;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function manifestFor(r: Rng, name: string, intent: string, stack: Stack): WorkflowManifest {
  const actions: StepAction[] = [r.pick(OPENING)];
  if (r.next() < 0.6) actions.push(r.pick(['planning_agent', 'design_architecture', 'analyze_code'] as StepAction[]));
  for (let i = 0, n = 1 + r.int(3); i < n; i += 1) actions.push(r.pick(WORK));
  actions.push(r.pick(CLOSING));
  if (r.next() < 0.3) actions.push(r.pick(CLOSING));
  const used = new Map<string, number>();
  const steps = actions.map((action, i) => {
    const template = STEP_LIBRARY[action];
    const seen = (used.get(template.id) ?? 0) + 1;
    used.set(template.id, seen);
    return { id: seen === 1 ? template.id : `${template.id}_${seen}`, name: r.pick(template.names), action, index: i };
  });
  const manifest: WorkflowManifest = {
    manifest_version: '1.0',
    name,
    intent,
    context: {
      language: stack.language,
      ...(stack.framework ? { framework: stack.framework } : {}),
      ...(stack.test_framework ? { test_framework: stack.test_framework } : {}),
    },
    steps: steps.map((s) => ({
      id: s.id,
      name: s.name,
      action: s.action,
      // Each step follows one earlier step, sometimes two: a DAG with some parallel branches.
      ...(s.index > 0
        ? {
            depends_on: [...new Set([steps[Math.max(0, s.index - 1 - r.int(2))]!.id, ...(r.next() < 0.2 ? [steps[0]!.id] : [])])].filter(
              (d) => d !== s.id,
            ),
          }
        : {}),
      ...(s.action === 'condition' ? { condition: 'previous.success == true' } : {}),
      ...(r.next() < 0.15 ? { retry: { max_attempts: 2 + r.int(3), backoff: r.pick(['exponential', 'linear']) } } : {}),
    })),
    ...(r.next() < 0.7 ? { outputs: { type: r.pick(OUTPUT_TYPES) } } : {}),
    ...(r.next() < 0.3 ? { adapters: { adapter_one: { mode: r.pick(['sub_agent', 'direct'] as const) } } } : {}),
  };
  const checked = validateManifest(manifest);
  if (!checked.valid) throw new Error(`seed produced an invalid manifest: ${checked.errors[0]!.message}`);
  return checked.manifest;
}

export function generateDataset(options: SeedOptions): Dataset {
  const r = rng(options.seed);
  const id = idMaker(r);
  const now = options.now.getTime();
  const data: Dataset = { users: [], plans: [], workflows: [], versions: [], library: [], reviews: [] };

  const users = Array.from({ length: options.users }, (_, i) => {
    const createdAt = new Date(now - (400 + r.int(400)) * DAY);
    const named = r.next() < 0.6;
    const user = {
      id: id('usr'),
      issuer: SEED_ISSUER,
      subject: `seed-${i + 1}`,
      email: `seed-${i + 1}@seed.invalid`,
      displayName: named ? `${r.pick(FIRST_NAMES)} ${r.pick(LAST_NAMES)}` : null,
      createdAt,
      updatedAt: createdAt,
    };
    data.users.push(user);
    // Seed users may exceed the free plan's quotas (5 workflows, 20 subscriptions).
    data.plans.push({ userId: user.id, plan: 'pro', status: 'active', createdAt, updatedAt: createdAt });
    return user;
  });
  const owned = new Map<string, number>();
  const addEntry = (
    userId: string,
    workflowId: string,
    sourceType: 'owned' | 'forked' | 'subscribed',
    sourceUserId: string,
    version: string,
    at: Date,
  ) =>
    data.library.push({
      id: id('lib'),
      userId,
      workflowId,
      sourceType,
      sourceUserId,
      isActive: r.next() < 0.9,
      enabledAdapters: [...ADAPTERS],
      workflowVersion: version,
      autoUpdate: r.next() < 0.85,
      addedAt: at,
      updatedAt: at,
    });

  interface Listed {
    row: Prisma.WorkflowCreateManyInput & { ratingSum: number; ratingCount: number; subscribersCount: number; forksCount: number };
    quality: number;
    publishedAt: number;
    users: Set<string>;
  }
  const listed: Listed[] = [];
  for (let i = 0; i < options.workflows; i += 1) {
    let owner = users[r.skewed(users.length, 1.6)]!;
    if ((owned.get(owner.id) ?? 0) >= 100) owner = users[r.int(users.length)]!;
    owned.set(owner.id, (owned.get(owner.id) ?? 0) + 1);
    const category = r.pick(CATEGORIES);
    const stack = r.pick(STACKS);
    const subject = r.pick(category.subjects);
    const prefix = r.pick(NAME_PREFIXES);
    const name = `${prefix}${prefix ? subject : capitalize(subject)}${r.next() < 0.5 ? ` for ${stack.label}` : ''}`;
    const goal = r.pick(category.goals);
    const description = `${capitalize(goal)} in ${stack.label} projects, ${r.pick(BENEFITS)}.`;
    const tags = [
      ...new Set([r.pick(category.tags), r.pick(category.tags), stack.tag, stack.language, ...(r.next() < 0.3 ? ['ai-agents'] : [])]),
    ].slice(0, 5);
    const manifest = manifestFor(r, name, `${capitalize(goal)}, ${r.pick(BENEFITS)}`, stack);
    const createdAt = now - (5 + r.int(360)) * DAY - r.int(DAY);
    const publishedAt = createdAt + r.int(3 * DAY);
    const releases = r.next() < 0.25 ? ['1.0.0', '1.1.0', ...(r.next() < 0.4 ? ['2.0.0'] : [])] : ['1.0.0'];
    const updatedAt = Math.min(now, publishedAt + (releases.length - 1) * r.int(30 * DAY));
    const wfId = id('wf');
    for (const [n, version] of releases.entries()) {
      data.versions.push({
        id: id('wfv'),
        workflowId: wfId,
        version,
        manifest:
          n === releases.length - 1 ? (manifest as never) : ({ ...manifest, intent: `${manifest.intent} (earlier version)` } as never),
        createdAt: new Date(n === 0 ? createdAt : Math.max(createdAt, updatedAt - (releases.length - 1 - n) * DAY)),
      });
    }
    const row = {
      id: wfId,
      ownerId: owner.id,
      name,
      description,
      visibility: 'public' as const,
      category: category.name,
      tags,
      allowForks: r.next() < 0.9,
      currentVersion: releases[releases.length - 1]!,
      manifest: manifest as never,
      forksCount: 0,
      subscribersCount: 0,
      ratingSum: 0,
      ratingCount: 0,
      publishedAt: new Date(publishedAt),
      createdAt: new Date(createdAt),
      updatedAt: new Date(updatedAt),
    };
    data.workflows.push(row);
    addEntry(owner.id, wfId, 'owned', owner.id, row.currentVersion, new Date(createdAt));
    listed.push({ row, quality: 2.5 + r.next() * 2.6, publishedAt, users: new Set([owner.id]) });
  }

  const review = (w: Listed, userId: string, at: number) => {
    if (r.next() >= 0.35) return;
    const rating = Math.max(1, Math.min(5, Math.round(w.quality + (r.next() - 0.5) * 2)));
    const when = new Date(Math.min(now, at + r.int(20 * DAY)));
    data.reviews.push({
      id: id('rev'),
      workflowId: w.row.id,
      userId,
      rating,
      text: `${r.pick(REVIEW_OPENERS)} ${r.pick(REVIEW_DETAILS)}`,
      createdAt: when,
      updatedAt: when,
    });
    w.row.ratingSum += rating;
    w.row.ratingCount += 1;
  };
  // Popularity follows the order of `listed` through `skewed`: early workflows draw most users.
  const subscriptions = new Map<string, number>();
  for (let n = 0, target = options.workflows * 3; n < target; n += 1) {
    const w = listed[r.skewed(listed.length)]!;
    const user = users[r.int(users.length)]!;
    if (w.users.has(user.id) || (subscriptions.get(user.id) ?? 0) >= 200) continue;
    w.users.add(user.id);
    subscriptions.set(user.id, (subscriptions.get(user.id) ?? 0) + 1);
    const at = w.publishedAt + r.next() ** 0.5 * (now - w.publishedAt);
    addEntry(user.id, w.row.id, 'subscribed', w.row.ownerId, w.row.currentVersion as string, new Date(at));
    w.row.subscribersCount += 1;
    review(w, user.id, at);
  }
  for (let n = 0, target = Math.ceil(options.workflows / 10); n < target; n += 1) {
    const w = listed[r.skewed(listed.length)]!;
    const user = users[r.int(users.length)]!;
    if (!w.row.allowForks || w.users.has(user.id) || (owned.get(user.id) ?? 0) >= 100) continue;
    w.users.add(user.id);
    owned.set(user.id, (owned.get(user.id) ?? 0) + 1);
    const at = w.publishedAt + r.next() * (now - w.publishedAt);
    const forkId = id('wf');
    data.workflows.push({
      ...w.row,
      id: forkId,
      ownerId: user.id,
      name: `${w.row.name} (copy)`.slice(0, 100),
      visibility: 'private',
      allowForks: true,
      currentVersion: '1.0.0',
      forkedFromWorkflowId: w.row.id,
      forkedFromUserId: w.row.ownerId,
      forkedFromVersion: w.row.currentVersion,
      forksCount: 0,
      subscribersCount: 0,
      ratingSum: 0,
      ratingCount: 0,
      publishedAt: null,
      createdAt: new Date(at),
      updatedAt: new Date(at),
    });
    data.versions.push({ id: id('wfv'), workflowId: forkId, version: '1.0.0', manifest: w.row.manifest, createdAt: new Date(at) });
    addEntry(user.id, forkId, 'forked', w.row.ownerId, '1.0.0', new Date(at));
    w.row.forksCount += 1;
    review(w, user.id, at);
  }
  return data;
}
