import { createHash, randomBytes } from 'node:crypto';
import type { Prisma, TeamInvitation, TeamRole } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { newId } from '../clock.js';
import { afterPosition, newestFirstOrderBy } from '../db/keyset.js';
import { AppError, notFound, validationError } from '../errors.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { recordAudit } from './audit.js';
import { assertManager, assertTeamPlan, checkRole, INVITABLE_ROLES, lockTeam, membershipOf } from './roles.js';

/** How long an invitation can be accepted (docs/teams.md, "Invitations"). */
const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The path of the page an invitation's link opens (src/teams/http.ts). */
export const INVITATION_PAGE_PATH = '/invitations/';
const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]+\.[^\s@<>"]+$/;
const EMAIL_MAX = 254;

export interface InvitationView {
  invitationId: string;
  teamId: string;
  email: string;
  role: TeamRole;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface CreatedInvitation extends InvitationView {
  /** Whether the e-mail with the link was sent. */
  emailSent: boolean;
  /** The accept link, given to the inviter only when this service sends no mail (no SMTP_URL). */
  acceptUrl: string | null;
}

/** What the invitation page shows of an invitation before it is accepted. */
interface InvitationPreview {
  teamName: string;
  role: TeamRole;
  state: 'pending' | 'accepted' | 'revoked' | 'expired';
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const viewOf = (i: TeamInvitation): InvitationView => ({
  invitationId: i.id,
  teamId: i.teamId,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

function stateOf(i: TeamInvitation, now: Date): InvitationPreview['state'] {
  if (i.acceptedAt) return 'accepted';
  if (i.revokedAt) return 'revoked';
  return i.expiresAt.getTime() <= now.getTime() ? 'expired' : 'pending';
}

function unusable(state: Exclude<InvitationPreview['state'], 'pending'>): AppError {
  const messages = {
    accepted: 'this invitation has already been used: an invitation works once',
    revoked: 'this invitation was revoked by the team: ask its owners or admins for a new one',
    expired: 'this invitation has expired (invitations work for 7 days): ask the team for a new one',
  };
  return new AppError('CONFLICT', messages[state], { reason: `invitation_${state}` });
}

function messageText(teamName: string, role: TeamRole, link: string): string {
  return [
    `You were invited to join the team "${teamName.replace(/[\r\n]+/g, ' ')}" as ${role === 'admin' ? 'an admin' : 'a member'}.`,
    '',
    'To accept, open this link within 7 days and confirm. It works once, and only for an account',
    'whose verified e-mail address is the one this message was sent to:',
    '',
    link,
    '',
    'If you do not know this team, ignore this message: nothing happens unless you confirm.',
    '',
  ].join('\n');
}

/** What the invitation operations are given: the database, the clock, the mailer and the seat sync. */
interface InvitationContext extends Pick<ServiceDeps, 'db' | 'clock'> {
  /** The mailer of the invitations' e-mails, or null when this service sends no mail (no SMTP_URL). */
  mailer: Mailer | null;
  /** The origin of the accept links. */
  origin: string;
  syncSeats(tx: Prisma.TransactionClient, billingOwnerId: string): Promise<void>;
}

function checkEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > EMAIL_MAX || !EMAIL.test(email))
    throw validationError([{ field: 'email', message: 'email must be an e-mail address such as name@example.com' }]);
  return email;
}

async function createInvitation(
  ctx: InvitationContext,
  viewer: Viewer,
  input: { teamId: string; email: string; role: string },
): Promise<CreatedInvitation> {
  const email = checkEmail(input.email);
  const role = checkRole(input.role, INVITABLE_ROLES);
  const { teamId } = input;
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const { invitation, teamName } = await ctx.db.prisma.$transaction(async (tx) => {
    await lockTeam(tx, teamId);
    const me = await membershipOf(tx, teamId, viewer.userId);
    assertManager(me.role, 'invite people');
    await assertTeamPlan(tx, me.team.billingOwnerId, teamId);
    const member = await tx.teamMember.findFirst({
      where: { teamId, user: { signInIdentities: { some: { email, emailVerified: true } } } },
    });
    if (member)
      throw new AppError('CONFLICT', 'the person with this address is already a member of the team', { reason: 'already_member' });
    const pending = await tx.teamInvitation.findFirst({
      where: { teamId, email, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      select: { id: true },
    });
    if (pending)
      throw new AppError('CONFLICT', 'this address already has a pending invitation: revoke it to send a new one', {
        reason: 'already_invited',
        invitationId: pending.id,
      });
    const created = await tx.teamInvitation.create({
      data: {
        id: newId('inv'),
        teamId,
        email,
        role,
        tokenHash: hashToken(token),
        invitedBy: viewer.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      },
    });
    await recordAudit(tx, now, {
      teamId,
      action: 'member.invited',
      actorUserId: viewer.userId,
      targetType: 'invitation',
      targetId: created.id,
      details: { email, role },
    });
    return { invitation: created, teamName: me.team.name };
  });
  const link = `${ctx.origin}${INVITATION_PAGE_PATH}${token}`;
  if (!ctx.mailer) return { ...viewOf(invitation), emailSent: false, acceptUrl: link };
  try {
    await ctx.mailer.send({
      to: email,
      subject: `Invitation to a team at ${new URL(ctx.origin).host}`,
      text: messageText(teamName, role, link),
    });
  } catch (error) {
    // The invitation nobody received is not kept.
    await ctx.db.prisma.teamInvitation.deleteMany({ where: { id: invitation.id } });
    const failure = new AppError(
      'SERVICE_UNAVAILABLE',
      'the invitation e-mail could not be sent; nothing was kept, try again shortly',
      {},
      { 'Retry-After': '30' },
    );
    failure.cause = error;
    throw failure;
  }
  return { ...viewOf(invitation), emailSent: true, acceptUrl: null };
}

async function listInvitations(
  ctx: InvitationContext,
  viewer: Viewer,
  input: { teamId: string; limit?: number | null; cursor?: string | null },
): Promise<Page<InvitationView>> {
  const me = await membershipOf(ctx.db.prisma, input.teamId, viewer.userId);
  assertManager(me.role, 'see its invitations');
  const limit = pageLimit(input.limit);
  const where: Prisma.TeamInvitationWhereInput = {
    teamId: input.teamId,
    acceptedAt: null,
    revokedAt: null,
    expiresAt: { gt: ctx.clock.now() },
  };
  if (input.cursor) where.OR = afterPosition('createdAt', timeCursorPosition(input.cursor, 'team-invitations'));
  const rows = await ctx.db.prisma.teamInvitation.findMany({ where, orderBy: newestFirstOrderBy('createdAt'), take: limit + 1 });
  return toPage(rows, limit, 'team-invitations', (i) => timeCursorOf(i.createdAt, i.id), viewOf);
}

async function revokeInvitation(
  ctx: InvitationContext,
  viewer: Viewer,
  input: { teamId: string; invitationId: string },
): Promise<InvitationView & { deleted: true }> {
  const { teamId, invitationId } = input;
  return ctx.db.prisma.$transaction(async (tx) => {
    const me = await membershipOf(tx, teamId, viewer.userId);
    assertManager(me.role, 'revoke invitations');
    const invitation = await tx.teamInvitation.findFirst({ where: { id: invitationId, teamId } });
    if (!invitation) throw notFound('invitation', invitationId);
    const now = ctx.clock.now();
    const state = stateOf(invitation, now);
    if (state !== 'pending') throw unusable(state);
    await tx.teamInvitation.update({ where: { id: invitationId }, data: { revokedAt: now } });
    await recordAudit(tx, now, {
      teamId,
      action: 'invitation.revoked',
      actorUserId: viewer.userId,
      targetType: 'invitation',
      targetId: invitationId,
      details: { email: invitation.email },
    });
    return { ...viewOf(invitation), deleted: true as const };
  });
}

/** The invitation of a token as its page shows it, or null for a token that names none. */
async function previewInvitation(ctx: InvitationContext, token: string): Promise<InvitationPreview | null> {
  const invitation = await ctx.db.prisma.teamInvitation.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { team: { select: { name: true } } },
  });
  if (!invitation) return null;
  return { teamName: invitation.team.name, role: invitation.role, state: stateOf(invitation, ctx.clock.now()) };
}

/**
 * Makes the signed-in person a member: the invitation must be pending, and sent to one of their
 * verified addresses. Used once; the team's billing owner must be on a plan for teams.
 */
async function acceptInvitation(
  ctx: InvitationContext,
  viewer: Viewer,
  input: { token: string },
): Promise<{ teamId: string; name: string; role: TeamRole }> {
  const tokenHash = hashToken(input.token);
  return ctx.db.prisma.$transaction(
    async (tx) => {
      const found = await tx.teamInvitation.findUnique({ where: { tokenHash }, select: { teamId: true } });
      if (!found) throw notFound('invitation');
      await lockTeam(tx, found.teamId);
      const invitation = await tx.teamInvitation.findUniqueOrThrow({ where: { tokenHash }, include: { team: true } });
      const now = ctx.clock.now();
      const state = stateOf(invitation, now);
      if (state !== 'pending') throw unusable(state);
      const verified = await tx.signInIdentity.count({ where: { userId: viewer.userId, email: invitation.email, emailVerified: true } });
      if (verified === 0)
        throw new AppError(
          'FORBIDDEN',
          'this invitation was sent to an address that is not a verified e-mail address of your account: sign in with the account it was sent to, or add and verify that address (e-mail sign-in)',
          { reason: 'invitation_email_mismatch' },
        );
      const teamId = invitation.teamId;
      const already = await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId: viewer.userId } } });
      if (already) throw new AppError('CONFLICT', 'you are already a member of this team', { reason: 'already_member' });
      await assertTeamPlan(tx, invitation.team.billingOwnerId, teamId);
      await tx.teamInvitation.update({ where: { id: invitation.id }, data: { acceptedAt: now, acceptedBy: viewer.userId } });
      await tx.teamMember.create({ data: { teamId, userId: viewer.userId, role: invitation.role, joinedAt: now } });
      await recordAudit(tx, now, {
        teamId,
        action: 'member.joined',
        actorUserId: viewer.userId,
        targetType: 'user',
        targetId: viewer.userId,
        details: { role: invitation.role, invitationId: invitation.id },
      });
      await ctx.syncSeats(tx, invitation.team.billingOwnerId);
      return { teamId, name: invitation.team.name, role: invitation.role };
    },
    { timeout: 30_000 },
  );
}

export function createInvitations(
  { db, config, clock }: ServiceDeps,
  hooks: { syncSeats(tx: Prisma.TransactionClient, billingOwnerId: string): Promise<void> },
) {
  const mailer: Mailer | null = config.mail ? createMailer(config.mail) : null;
  const origin = new URL(config.publicBaseUrl).origin;
  return withContext(
    { db, clock, mailer, origin, syncSeats: (tx: Prisma.TransactionClient, billingOwnerId: string) => hooks.syncSeats(tx, billingOwnerId) },
    { createInvitation, listInvitations, revokeInvitation, previewInvitation, acceptInvitation },
  );
}
