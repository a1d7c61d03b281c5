import type { AuditEntry, Prisma } from '@prisma/client';
import { newId } from '../clock.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError } from '../errors.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';

/**
 * The audit logs (docs/teams.md, "Audit log"): a team's log, read by its owners and admins, and each
 * person's own log of their security events. Entries are written in the transaction of what they
 * record, so a change and its entry commit together.
 */

/** The actions an entry may record, by the words docs/teams.md lists them under. */
type AuditAction =
  | 'team.created'
  | 'member.invited'
  | 'member.joined'
  | 'member.removed'
  | 'member.role_changed'
  | 'invitation.revoked'
  | 'billing_owner.changed'
  | 'plan.changed'
  | 'workflow.created'
  | 'workflow.updated'
  | 'workflow.deleted'
  | 'workflow.moved'
  | 'deployment.created'
  | 'deployment.updated'
  | 'deployment.deleted'
  | 'deployment.moved'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'oauth_connection.granted'
  | 'oauth_connection.revoked'
  | 'session.signed_in';

/** One event: of a team (`teamId`) or of a person's own account (`userId`), or both. */
export interface AuditEvent {
  teamId?: string | null;
  userId?: string | null;
  action: AuditAction;
  /** Who did it; null when the service did (an expiry, a provider's event). */
  actorUserId: string | null;
  targetType: string;
  targetId: string;
  /** Facts worth showing (a role, an address, a plan): never a secret. */
  details?: Record<string, unknown>;
}

export interface AuditEntryView {
  entryId: string;
  action: string;
  actorUserId: string | null;
  targetType: string;
  targetId: string;
  details: unknown;
  at: Date;
}

/** Writes one entry (inside the transaction of the change when given one). */
export async function recordAudit(db: Prisma.TransactionClient, at: Date, event: AuditEvent): Promise<void> {
  await db.auditEntry.create({
    data: {
      id: newId('aud'),
      teamId: event.teamId ?? null,
      userId: event.userId ?? null,
      action: event.action,
      actorUserId: event.actorUserId,
      targetType: event.targetType,
      targetId: event.targetId,
      details: (event.details ?? {}) as Prisma.InputJsonValue,
      at,
    },
  });
}

const viewOf = (e: AuditEntry): AuditEntryView => ({
  entryId: e.id,
  action: e.action,
  actorUserId: e.actorUserId,
  targetType: e.targetType,
  targetId: e.targetId,
  details: e.details,
  at: e.at,
});

/** A page of a log, newest first: the team's (`teamId`) or the person's (`userId`). */
export async function readAuditPage(
  db: Prisma.TransactionClient,
  owner: { teamId: string } | { userId: string },
  input: { limit?: number | null; cursor?: string | null },
): Promise<Page<AuditEntryView>> {
  const limit = pageLimit(input.limit);
  const kind = 'teamId' in owner ? 'team-audit-log' : 'user-audit-log';
  const where: Prisma.AuditEntryWhereInput = 'teamId' in owner ? { teamId: owner.teamId } : { userId: owner.userId };
  if (input.cursor) where.OR = afterPosition('at', timeCursorPosition(input.cursor, kind));
  const rows = await db.auditEntry.findMany({ where, orderBy: newestFirstOrderBy('at'), take: limit + 1 });
  return toPage(rows, limit, kind, (e) => timeCursorOf(e.at, e.id), viewOf);
}

/** The most entries one CSV export holds (the newest); older ones are read page by page. */
const CSV_MAX_ROWS = 10_000;

/**
 * A cell as a spreadsheet shows it, not runs it: text starting with = + - @, a tab or a carriage
 * return gets a leading apostrophe (OWASP, "CSV Injection"); quotes are doubled inside quotes.
 */
export function csvCell(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${guarded.replace(/"/g, '""')}"`;
}

/** The newest entries of a log as CSV (RFC 4180, CRLF line ends), with a header row. */
export async function auditCsv(db: Prisma.TransactionClient, owner: { teamId: string } | { userId: string }): Promise<string> {
  const where: Prisma.AuditEntryWhereInput = 'teamId' in owner ? { teamId: owner.teamId } : { userId: owner.userId };
  const rows = await db.auditEntry.findMany({ where, orderBy: newestFirstOrderBy('at'), take: CSV_MAX_ROWS });
  const header = ['at', 'action', 'actorUserId', 'targetType', 'targetId', 'details'];
  const lines = rows.map((e) =>
    [e.at.toISOString(), e.action, e.actorUserId ?? '', e.targetType, e.targetId, JSON.stringify(e.details)].map(csvCell).join(','),
  );
  return [header.join(','), ...lines].join('\r\n') + '\r\n';
}

/** FORBIDDEN for a member who is not an owner or admin: the log is theirs to read. */
export function auditNotAllowed(): AppError {
  return new AppError('FORBIDDEN', "only the team's owners and admins may read its audit log", { reason: 'team_role' });
}
