import type { Prisma } from '@prisma/client';
import type { CheckResult } from '../marketplace/content-check.js';
import type { VersionContent } from './digest.js';
import type { CleanWorkflowInput } from './input.js';
import type { Tx, WorkflowQuery } from './types.js';

/** The columns every write of a workflow fills the same way. */

/** Findings as stored in a check_findings column. */
export function findingsColumn(check: CheckResult): Prisma.InputJsonValue {
  return check.findings as unknown as Prisma.InputJsonValue;
}

/** The fields of a version row that describe the workflow (the manifest is written beside them). */
export function versionFields(content: VersionContent) {
  return { name: content.name, description: content.description, category: content.category, tags: [...content.tags] };
}

/** The columns a workflow's author writes, taken from the cleaned input: created or updated alike. */
export function authoredColumns(clean: CleanWorkflowInput) {
  return {
    name: clean.name,
    description: clean.description,
    visibility: clean.visibility,
    category: clean.category,
    tags: clean.tags,
    allowForks: clean.allowForks,
    manifest: clean.manifest as unknown as Prisma.InputJsonValue,
    manifestYaml: clean.manifestYaml,
  };
}

/**
 * The row as a write left it, read inside the write's transaction: read after the commit, the
 * answer could describe another client's write made in between.
 */
export async function reload(tx: Tx, workflowId: string, query: WorkflowQuery) {
  return tx.workflow.findUniqueOrThrow({ where: { id: workflowId }, ...query });
}
