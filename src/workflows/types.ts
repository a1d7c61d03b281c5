import type { Prisma } from '@prisma/client';
import type { ServiceDeps } from '../service-deps.js';
import type { Visibility } from './input.js';

/** What the workflow operations are built from: the database and the clock. */
export type WorkflowContext = Pick<ServiceDeps, 'db' | 'clock'>;

/** A transaction, or the client outside one. */
export type Tx = Prisma.TransactionClient;

/** Prisma's include/select for the nested reads GraphQL asks for (plugin-prisma's `query`). */
export type WorkflowQuery = { include?: Prisma.WorkflowInclude; select?: Prisma.WorkflowSelect; omit?: Prisma.WorkflowOmit };

/** The columns a page of summaries leaves out (Prisma's `omit`): the manifest, kept twice. */
export const WITHOUT_MANIFEST = { manifest: true, manifestText: true, manifestYaml: true } as const satisfies Prisma.WorkflowOmit;

export interface ListWorkflowsInput {
  limit?: number | null;
  cursor?: string | null;
  visibility?: Visibility | null;
  /** A team's workflows (for its members) in place of the caller's personal ones. */
  teamId?: string | null;
}

export interface VersionPageInput {
  limit?: number | null;
  cursor?: string | null;
}
