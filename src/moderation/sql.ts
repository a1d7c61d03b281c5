import { Prisma, type ModerationState } from '@prisma/client';

/** The SQL of moderation that Prisma cannot say: a row lock, and a change that leaves updated_at alone. */

/** The workflow's row, locked until the transaction ends (no row: there is no such workflow). */
export const lockWorkflowForModeration = (workflowId: string) => Prisma.sql`
  SELECT id, name, moderation_state::text AS moderation_state FROM workflows WHERE id = ${workflowId} FOR UPDATE`;

/** Sets a workflow's moderation; its updated_at stays, since its author changed nothing. */
export const setModeration = (workflowId: string, state: ModerationState, reason: string, at: Date) => Prisma.sql`
  UPDATE workflows SET moderation_state = ${state}::"ModerationState", moderation_reason = ${reason}, moderated_at = ${at}
  WHERE id = ${workflowId}`;
