import { AppError } from '../errors.js';
import type { FieldProblem } from '../errors.js';
import { parseManifestInput, validateManifest } from '../manifest/validate.js';
import type { WorkflowManifest } from '../manifest/types.js';

/** Limits on a workflow's own fields (the specification leaves them open; see docs/decisions.md). */
export const WORKFLOW_LIMITS = {
  name: 100,
  description: 2000,
  category: 50,
  tags: 20,
  tag: 32,
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

export interface CleanWorkflowInput {
  name: string;
  description: string;
  manifest: WorkflowManifest;
  visibility: Visibility;
  category: string;
  tags: string[];
  allowForks: boolean;
}

export function cleanName(raw: string, problems: FieldProblem[], field = 'name'): string {
  const name = raw.trim();
  if (!name) problems.push({ field, message: `${field} must not be empty` });
  else if (name.length > WORKFLOW_LIMITS.name) problems.push({ field, message: `${field} must be at most ${WORKFLOW_LIMITS.name} characters (got ${name.length})` });
  return name;
}

/** Checks and normalises a create or update body; every problem is reported at once. */
export function cleanWorkflowInput(input: WorkflowInput): CleanWorkflowInput {
  const problems: FieldProblem[] = [];
  const name = cleanName(input.name, problems);
  const description = (input.description ?? '').trim();
  if (description.length > WORKFLOW_LIMITS.description) problems.push({ field: 'description', message: `description must be at most ${WORKFLOW_LIMITS.description} characters` });
  const category = (input.category ?? '').trim();
  if (category.length > WORKFLOW_LIMITS.category) problems.push({ field: 'category', message: `category must be at most ${WORKFLOW_LIMITS.category} characters` });
  const tags: string[] = [];
  for (const [i, raw] of (input.tags ?? []).entries()) {
    const tag = raw.trim();
    if (!tag || tag.length > WORKFLOW_LIMITS.tag) problems.push({ field: `tags[${i}]`, message: `tags[${i}] must be 1 to ${WORKFLOW_LIMITS.tag} characters` });
    else if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > WORKFLOW_LIMITS.tags) problems.push({ field: 'tags', message: `at most ${WORKFLOW_LIMITS.tags} tags are allowed` });

  let manifest: WorkflowManifest | undefined;
  let manifestErrors: unknown[] = [];
  const parsed = parseManifestInput(input.manifest);
  const result = validateManifest(parsed);
  if (result.valid) manifest = result.manifest;
  else {
    manifestErrors = result.errors;
    problems.push({ field: 'manifest', message: `the manifest is not valid (${result.errors.length} problem${result.errors.length === 1 ? '' : 's'}): ${result.errors[0]!.message}` });
  }

  if (problems.length || !manifest) {
    throw new AppError('VALIDATION_ERROR', problems.map((p) => p.message).join('; '), {
      fields: problems,
      ...(manifestErrors.length ? { manifestErrors } : {}),
    });
  }
  return { name, description, manifest, visibility: input.visibility ?? 'private', category, tags, allowForks: input.allowForks ?? true };
}
