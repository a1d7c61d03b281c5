import type { AuditEntry, Prisma } from '@prisma/client';
import { newId } from '../clock.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError, validationError, type FieldProblem } from '../errors.js';
import { AUDIT_ACTIONS, type AuditAction } from './audit-actions.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';

/**
 * The audit logs (docs/teams.md, "Audit log"): a team's log, read by its owners and admins, and each
 * person's own log of their security events. Entries are written in the transaction of what they
 * record, so a change and its entry commit together.
 */

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

/** Whose log: a team's or a person's own. */
type LogOwner = { teamId: string } | { userId: string };

/** The optional filters of a log (docs/teams.md, "Audit log"): all given ones must hold. */
export interface AuditFilterInput {
  action?: string | null;
  actorUserId?: string | null;
  targetType?: string | null;
  since?: string | null;
  until?: string | null;
}

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const USER_ID = /^[A-Za-z0-9_-]{1,100}$/;
const TARGET_TYPE = /^[a-z][a-z_]{0,39}$/;

/** An ISO 8601 date or timestamp with its zone, or a problem naming `field`. */
function timestampOf(field: 'since' | 'until', value: string, problems: FieldProblem[]): Date | undefined {
  const match = ISO_TIMESTAMP.exec(value);
  const at = match ? new Date(value) : undefined;
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const calendarDay = new Date(Date.UTC(year, month - 1, day));
  if (!at || Number.isNaN(at.getTime()) || calendarDay.getUTCMonth() !== month - 1 || calendarDay.getUTCDate() !== day) {
    problems.push({
      field,
      message: `${field} must be an ISO 8601 date or timestamp with its zone, e.g. 2026-01-31 or 2026-01-31T12:00:00Z`,
    });
    return undefined;
  }
  return at;
}

/** The entries of `owner` that pass the filters; 400 VALIDATION_ERROR naming each filter that is not valid. */
function auditWhere(owner: LogOwner, filter: AuditFilterInput): Prisma.AuditEntryWhereInput {
  const problems: FieldProblem[] = [];
  const where: Prisma.AuditEntryWhereInput = 'teamId' in owner ? { teamId: owner.teamId } : { userId: owner.userId };
  if (filter.action != null) {
    if ((AUDIT_ACTIONS as readonly string[]).includes(filter.action)) where.action = filter.action;
    else problems.push({ field: 'action', message: `action must be one of ${AUDIT_ACTIONS.join(', ')}` });
  }
  if (filter.actorUserId != null) {
    if (USER_ID.test(filter.actorUserId)) where.actorUserId = filter.actorUserId;
    else problems.push({ field: 'actorUserId', message: 'actorUserId must be a user id (letters, digits, _ and -)' });
  }
  if (filter.targetType != null) {
    if (TARGET_TYPE.test(filter.targetType)) where.targetType = filter.targetType;
    else problems.push({ field: 'targetType', message: 'targetType must be a target type such as user, invitation or api_key' });
  }
  const since = filter.since != null ? timestampOf('since', filter.since, problems) : undefined;
  const until = filter.until != null ? timestampOf('until', filter.until, problems) : undefined;
  if (since && until && until <= since) problems.push({ field: 'until', message: 'until must be later than since' });
  if (problems.length) throw validationError(problems);
  if (since || until) where.at = { ...(since && { gte: since }), ...(until && { lt: until }) };
  return where;
}

/** A page of a log, newest first: the team's (`teamId`) or the person's (`userId`), filtered. */
export async function readAuditPage(
  db: Prisma.TransactionClient,
  owner: LogOwner,
  input: AuditFilterInput & { limit?: number | null; cursor?: string | null },
): Promise<Page<AuditEntryView>> {
  const limit = pageLimit(input.limit);
  const kind = 'teamId' in owner ? 'team-audit-log' : 'user-audit-log';
  const where = auditWhere(owner, input);
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

/** The newest entries of a log that pass the filters as CSV (RFC 4180, CRLF line ends), with a header row. */
export async function auditCsv(db: Prisma.TransactionClient, owner: LogOwner, filter: AuditFilterInput = {}): Promise<string> {
  const where = auditWhere(owner, filter);
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
