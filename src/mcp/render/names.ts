/**
 * Tool and prompt names. Clients key permissions, allow-lists and slash commands on these
 * names, so a workflow's names depend only on that workflow (its name and id), never on
 * its neighbours in the deployment or on its version.
 */
import { createHash } from 'node:crypto';

export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,48}$/;
const MAX_NAME_LENGTH = 48;

const HASH_LENGTH = 8;
const MAX_STEP_PART = 24;
const STEP_HASH_LENGTH = 6;
const PROMPT_SUFFIX = '_plan';
const FALLBACK_SLUG = 'workflow';

/**
 * Names are pure functions of workflow names and ids, and every tool list and call names each
 * tool again: the hashes and slugs are remembered, up to this many of each (then started afresh).
 */
const MEMO_SIZE = 8192;

function memo(fn: (value: string) => string): (value: string) => string {
  const known = new Map<string, string>();
  return (value) => {
    let result = known.get(value);
    if (result === undefined) {
      if (known.size >= MEMO_SIZE) known.clear();
      known.set(value, (result = fn(value)));
    }
    return result;
  };
}

const sha256Hex = memo((value) => createHash('sha256').update(value, 'utf8').digest('hex'));

function shortHash(value: string, length: number): string {
  return sha256Hex(value).slice(0, length);
}

/** Lower-case ASCII words joined by `_`; accents are folded so "Révision" stays readable. */
const slugify = memo((value) =>
  value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, ''),
);

function truncateSlug(slug: string, max: number): string {
  const cut = slug.slice(0, Math.max(1, max)).replace(/_+$/, '');
  return cut === '' ? FALLBACK_SLUG.slice(0, Math.max(1, max)) : cut;
}

/**
 * `<slug>_<hash>` with the hash of the workflow id: two workflows with the same name
 * still differ, and a renamed-but-same workflow keeps its suffix.
 */
function workflowBase(name: string, workflowId: string, budget: number): string {
  const hash = shortHash(workflowId, HASH_LENGTH);
  const slug = slugify(name) || FALLBACK_SLUG;
  return `${truncateSlug(slug, budget - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * Step ids are unique in a manifest but may be long; a long one keeps a readable prefix
 * plus a hash of the whole id so truncation cannot make two steps collide.
 */
function stepPart(stepId: string): string {
  if (stepId.length <= MAX_STEP_PART) return stepId;
  const prefix = stepId.slice(0, MAX_STEP_PART - STEP_HASH_LENGTH - 1).replace(/_+$/, '');
  return `${prefix}_${shortHash(stepId, STEP_HASH_LENGTH)}`;
}

export function mainToolName(name: string, workflowId: string): string {
  return workflowBase(name, workflowId, MAX_NAME_LENGTH);
}

/** `<slug>_<hash>__<step>`: the double underscore keeps the step readable as a separate part. */
export function stepToolName(name: string, workflowId: string, stepId: string): string {
  const step = stepPart(stepId);
  return `${workflowBase(name, workflowId, MAX_NAME_LENGTH - step.length - 2)}__${step}`;
}

/**
 * Prompts live in their own MCP namespace, but a suffix keeps them apart from tools for
 * clients that show both in one list (slash commands next to tools).
 */
export function promptName(name: string, workflowId: string): string {
  return `${workflowBase(name, workflowId, MAX_NAME_LENGTH - PROMPT_SUFFIX.length)}${PROMPT_SUFFIX}`;
}
