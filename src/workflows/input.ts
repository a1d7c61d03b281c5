import { validationError, type FieldProblem } from '../errors.js';
import { parseManifestInput, validateManifest } from '../manifest/validate.js';
import type { WorkflowManifest } from '../manifest/types.js';
import { MANIFEST_YAML_MAX_BYTES, writtenManifest, yamlTextOf, type StoredManifest } from '../manifest/stored.js';
import { characterCount, checkLength, cleanName, NAME_MAX, TEXT_LIMITS } from '../text.js';

/** Where a manifest error's message starts its list of allowed actions, values or properties (src/manifest/schema-errors.ts). */
const ALLOWED_LIST = /; allowed (?:actions|values|properties): /;

/** Limits on a workflow's own fields, in characters (src/text.ts; beyond the name the specification leaves them open: docs/decisions.md). */
export const WORKFLOW_LIMITS = {
  name: NAME_MAX,
  description: TEXT_LIMITS.description,
  category: TEXT_LIMITS.category,
  tags: TEXT_LIMITS.tags,
  tag: TEXT_LIMITS.tag,
} as const;

export type Visibility = 'public' | 'private';

export interface WorkflowInput {
  name: string;
  description?: string | null;
  manifest?: unknown;
  visibility?: Visibility | null;
  category?: string | null;
  tags?: string[] | null;
  allowForks?: boolean | null;
}

/** An update: every field optional; one left out keeps its current value. */
export type WorkflowUpdateInput = { [K in keyof WorkflowInput]?: WorkflowInput[K] | null };

export interface CleanWorkflowInput {
  name: string;
  description: string;
  manifest: WorkflowManifest;
  /** The YAML text as sent, when the manifest was sent as YAML; null otherwise. */
  manifestYaml: string | null;
  visibility: Visibility;
  category: string;
  tags: string[];
  allowForks: boolean;
}

/**
 * The update body merged over the stored workflow (docs/decisions.md, "Update"): a field left out
 * keeps its value; `null` empties a field that may be empty (description, category, tags) and is
 * refused for the others, so no field changes because a client did not send it.
 */
export function mergeWorkflowUpdate(
  input: WorkflowUpdateInput,
  current: Omit<CleanWorkflowInput, 'manifest'> & StoredManifest,
): WorkflowInput {
  const problems: FieldProblem[] = [];
  for (const field of ['name', 'manifest', 'visibility', 'allowForks'] as const) {
    if (input[field] === null) problems.push({ field, message: `${field} cannot be null; leave it out to keep the current value` });
  }
  if (problems.length) throw validationError(problems);
  const keep = <T>(value: T | null | undefined, stored: T, empty: T): T => (value === undefined ? stored : value === null ? empty : value);
  return {
    name: input.name ?? current.name,
    description: keep(input.description, current.description, ''),
    // Left out: the manifest as it was sent, its YAML text when it came as YAML (kept as written).
    manifest: input.manifest === undefined ? (current.manifestYaml ?? writtenManifest(current)) : input.manifest,
    visibility: input.visibility ?? current.visibility,
    category: keep(input.category, current.category, ''),
    tags: keep(input.tags, current.tags, []),
    allowForks: input.allowForks ?? current.allowForks,
  };
}

/** Checks and normalises a create or update body; every problem is reported at once. */
export function cleanWorkflowInput(input: WorkflowInput): CleanWorkflowInput {
  const problems: FieldProblem[] = [];
  const name = cleanName(input.name, problems);
  const description = (input.description ?? '').trim();
  checkLength(description, WORKFLOW_LIMITS.description, 'description', problems);
  const category = (input.category ?? '').trim();
  checkLength(category, WORKFLOW_LIMITS.category, 'category', problems);
  const tags: string[] = [];
  for (const [i, raw] of (input.tags ?? []).entries()) {
    const tag = raw.trim();
    if (!tag || characterCount(tag) > WORKFLOW_LIMITS.tag)
      problems.push({ field: `tags[${i}]`, message: `tags[${i}] must be 1 to ${WORKFLOW_LIMITS.tag} characters` });
    else if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > WORKFLOW_LIMITS.tags) problems.push({ field: 'tags', message: `at most ${WORKFLOW_LIMITS.tags} tags are allowed` });

  let manifest: WorkflowManifest | undefined;
  let manifestErrors: unknown[] = [];
  const parsed = parseManifestInput(input.manifest);
  const result = validateManifest(parsed);
  const manifestYaml = yamlTextOf(input.manifest);
  if (result.valid) {
    manifest = result.manifest;
    if (manifestYaml !== null && Buffer.byteLength(manifestYaml) > MANIFEST_YAML_MAX_BYTES)
      problems.push({
        field: 'manifest',
        message: `the manifest is ${Buffer.byteLength(manifestYaml)} bytes of YAML; at most ${MANIFEST_YAML_MAX_BYTES} are kept`,
      });
  } else {
    manifestErrors = result.errors;
    // The summary names the first problem without the list of allowed values its message may end
    // with (32 actions, for an unknown one): that list is given once, in details.manifestErrors.
    const first = result.errors[0]!.message;
    const headline = first.split(ALLOWED_LIST)[0]!;
    problems.push({
      field: 'manifest',
      message:
        `the manifest is not valid (${result.errors.length} problem${result.errors.length === 1 ? '' : 's'}): ${headline}` +
        (headline === first ? '' : ' (the allowed ones are listed in details.manifestErrors)'),
    });
  }

  if (problems.length || !manifest) {
    throw validationError(problems, manifestErrors.length ? { manifestErrors } : {});
  }
  return {
    name,
    description,
    manifest,
    manifestYaml,
    visibility: input.visibility ?? 'private',
    category,
    tags,
    allowForks: input.allowForks ?? true,
  };
}
