import type { ArgBuilder } from '@pothos/core';
import { builder, graphqlOnly } from '../graphql/builder.js';
import { pageRef } from '../graphql/pagination.js';
import type { AuditEntryView } from './audit.js';
import type { CreatedInvitation, InvitationView } from './invitations.js';
import type { TeamMemberView, TeamView } from './service.js';

const TeamRoleEnum = builder.enumType('TeamRole', {
  description: 'A role in a team: `owner` (everything, billing included), `admin` (manages members), `member` (uses the team).',
  values: ['owner', 'admin', 'member'] as const,
});

const TeamRef = builder.objectRef<TeamView>('Team').implement({
  description: 'A team, as one of its members sees it.',
  fields: (t) => ({
    teamId: t.exposeString('teamId'),
    name: t.exposeString('name'),
    role: t.field({ type: TeamRoleEnum, description: 'Your role in the team.', resolve: (team) => team.role }),
    billingOwnerId: t.exposeString('billingOwnerId', { description: "The owner whose subscription pays for the team's seats." }),
    createdAt: t.string({ resolve: (team) => team.createdAt.toISOString() }),
  }),
});

const TeamMemberRef = builder.objectRef<TeamMemberView>('TeamMember').implement({
  fields: (t) => ({
    userId: t.exposeString('userId'),
    email: t.exposeString('email', { nullable: true }),
    displayName: t.exposeString('displayName', { nullable: true }),
    role: t.field({ type: TeamRoleEnum, resolve: (m) => m.role }),
    joinedAt: t.string({ resolve: (m) => m.joinedAt.toISOString() }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const invitationFields = <K extends InvitationView>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, K>) => ({
  invitationId: t.string({ resolve: (i) => i.invitationId }),
  teamId: t.string({ resolve: (i) => i.teamId }),
  email: t.string({ resolve: (i) => i.email }),
  role: t.field({ type: TeamRoleEnum, resolve: (i) => i.role }),
  invitedBy: t.string({ nullable: true, resolve: (i) => i.invitedBy }),
  createdAt: t.string({ resolve: (i) => i.createdAt.toISOString() }),
  expiresAt: t.string({ resolve: (i) => i.expiresAt.toISOString() }),
});

const TeamInvitationRef = builder.objectRef<InvitationView>('TeamInvitation').implement({
  description: 'A pending invitation to a team (its link is never shown again).',
  fields: (t) => invitationFields(t),
});

const CreatedInvitationRef = builder.objectRef<CreatedInvitation>('CreatedTeamInvitation').implement({
  description: 'A new invitation: e-mailed to the address with its accept link.',
  fields: (t) => ({
    ...invitationFields(t),
    emailSent: t.exposeBoolean('emailSent'),
    acceptUrl: t.exposeString('acceptUrl', {
      nullable: true,
      description: 'The accept link, only when this service sends no e-mail: pass it on yourself. Null when it was e-mailed.',
    }),
  }),
});

const RevokedInvitationRef = builder.objectRef<InvitationView & { deleted: true }>('RevokedTeamInvitation').implement({
  fields: (t) => ({ ...invitationFields(t), deleted: t.exposeBoolean('deleted') }),
});

const JoinedTeamRef = builder.objectRef<{ teamId: string; name: string; role: 'owner' | 'admin' | 'member' }>('JoinedTeam').implement({
  fields: (t) => ({
    teamId: t.exposeString('teamId'),
    name: t.exposeString('name'),
    role: t.field({ type: TeamRoleEnum, resolve: (j) => j.role }),
  }),
});

const RemovedMemberRef = builder.objectRef<{ teamId: string; userId: string; deleted: true }>('RemovedTeamMember').implement({
  fields: (t) => ({ teamId: t.exposeString('teamId'), userId: t.exposeString('userId'), deleted: t.exposeBoolean('deleted') }),
});

const AuditEntryRef = builder.objectRef<AuditEntryView>('AuditEntry').implement({
  description: 'One entry of an audit log (docs/teams.md, "Audit log").',
  fields: (t) => ({
    entryId: t.exposeString('entryId'),
    action: t.exposeString('action', { description: 'What happened, e.g. member.invited, api_key.revoked.' }),
    actorUserId: t.exposeString('actorUserId', { nullable: true, description: 'Who did it; null when the service did.' }),
    targetType: t.exposeString('targetType'),
    targetId: t.exposeString('targetId'),
    details: t.field({ type: 'JSON', resolve: (e) => e.details }),
    at: t.string({ resolve: (e) => e.at.toISOString() }),
  }),
});

const CsvDocumentRef = builder.objectRef<{ contentType: string; body: string }>('CsvDocument').implement({
  fields: (t) => ({ contentType: t.exposeString('contentType'), body: t.exposeString('body') }),
});

/** The optional filters of an audit log (docs/teams.md, "Audit log"). */
const auditFilterArgs = (arg: ArgBuilder<Types>) => ({
  action: arg.string({ description: 'Only this action, e.g. member.joined.' }),
  actorUserId: arg.string({ description: 'Only entries of what this user did.' }),
  targetType: arg.string({ description: 'Only entries about this kind of target, e.g. user, invitation, api_key.' }),
  since: arg.string({ description: 'Only entries at or after this ISO 8601 time (a date is its midnight UTC).' }),
  until: arg.string({ description: 'Only entries before this ISO 8601 time.' }),
});

builder.queryFields((t) => ({
  team: t.field({
    type: TeamRef,
    description: 'One team you are in, with your role (a team you are not in is NOT_FOUND, as one that does not exist).',
    authScopes: { authenticated: true },
    extensions: graphqlOnly,
    args: { teamId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.getTeam(ctx.viewer!, args.teamId),
  }),
  teams: t.field({
    type: pageRef('TeamPage', TeamRef),
    description: 'The teams you are in, with your role in each, newest membership first. REST: GET /v1/teams.',
    authScopes: { authenticated: true },
    args: { limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }), cursor: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.teams.listTeams(ctx.viewer!, args),
  }),
  teamMembers: t.field({
    type: pageRef('TeamMemberPage', TeamMemberRef),
    description: "A team's members, newest first; for its members. REST: GET /v1/teams/:teamId/members.",
    authScopes: { authenticated: true },
    args: {
      teamId: t.arg.string({ required: true }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.teams.listMembers(ctx.viewer!, args),
  }),
  teamInvitations: t.field({
    type: pageRef('TeamInvitationPage', TeamInvitationRef),
    description: "A team's pending invitations, newest first; for owners and admins. REST: GET /v1/teams/:teamId/invitations.",
    authScopes: { authenticated: true },
    args: {
      teamId: t.arg.string({ required: true }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.teams.listInvitations(ctx.viewer!, args),
  }),
  teamAuditLog: t.field({
    type: pageRef('AuditEntryPage', AuditEntryRef),
    description: "A team's audit log, newest first; for owners and admins. REST: GET /v1/teams/:teamId/audit-log.",
    authScopes: { authenticated: true },
    args: {
      teamId: t.arg.string({ required: true }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
      cursor: t.arg.string(),
      ...auditFilterArgs(t.arg),
    },
    resolve: (_root, args, ctx) => ctx.services.teams.teamAuditLog(ctx.viewer!, args),
  }),
  teamAuditLogCsv: t.field({
    type: CsvDocumentRef,
    description: "A team's audit log as CSV, newest first. REST: GET /v1/teams/:teamId/audit-log.csv.",
    authScopes: { authenticated: true },
    args: { teamId: t.arg.string({ required: true }), ...auditFilterArgs(t.arg) },
    resolve: (_root, args, ctx) => ctx.services.teams.teamAuditCsv(ctx.viewer!, args),
  }),
  myAuditLog: t.field({
    type: pageRef('UserAuditEntryPage', AuditEntryRef),
    description: "Your account's security events (keys, OAuth connections, sign-ins), newest first. REST: GET /v1/users/me/audit-log.",
    authScopes: { authenticated: true },
    args: { limit: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }), cursor: t.arg.string(), ...auditFilterArgs(t.arg) },
    resolve: (_root, args, ctx) => ctx.services.teams.myAuditLog(ctx.viewer!, args),
  }),
  myAuditLogCsv: t.field({
    type: CsvDocumentRef,
    description: "Your account's security events as CSV. REST: GET /v1/users/me/audit-log.csv.",
    authScopes: { authenticated: true },
    args: auditFilterArgs(t.arg),
    resolve: (_root, args, ctx) => ctx.services.teams.myAuditCsv(ctx.viewer!, args),
  }),
}));

builder.mutationFields((t) => ({
  createTeam: t.field({
    type: TeamRef,
    description: 'Creates a team with you as its owner and billing owner. REST: POST /v1/teams.',
    authScopes: { authenticated: true },
    args: { name: t.arg.string({ required: true, description: '1 to 100 characters.' }) },
    resolve: (_root, args, ctx) => ctx.services.teams.createTeam(ctx.viewer!, args),
  }),
  inviteTeamMember: t.field({
    type: CreatedInvitationRef,
    description:
      'Invites an address to the team (owners and admins); it gets an e-mail with a link valid 7 days. REST: POST /v1/teams/:teamId/invitations.',
    authScopes: { authenticated: true },
    args: {
      teamId: t.arg.string({ required: true }),
      email: t.arg.string({ required: true }),
      role: t.arg.string({ required: true, description: '"admin" or "member".' }),
    },
    resolve: (_root, args, ctx) => ctx.services.teams.createInvitation(ctx.viewer!, args),
  }),
  revokeTeamInvitation: t.field({
    type: RevokedInvitationRef,
    description: 'Revokes a pending invitation: its link stops working. REST: DELETE /v1/teams/:teamId/invitations/:invitationId.',
    authScopes: { authenticated: true },
    args: { teamId: t.arg.string({ required: true }), invitationId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.revokeInvitation(ctx.viewer!, args),
  }),
  acceptTeamInvitation: t.field({
    type: JoinedTeamRef,
    description: 'Accepts an invitation sent to one of your verified addresses. REST: POST /v1/invitations/:token/accept.',
    authScopes: { authenticated: true },
    args: { token: t.arg.string({ required: true, description: 'The last part of the invitation link.' }) },
    resolve: (_root, args, ctx) => ctx.services.teams.acceptInvitation(ctx.viewer!, args),
  }),
  updateTeamMember: t.field({
    type: TeamMemberRef,
    description: "Changes a member's role (owners and admins; ownership by owners only). REST: PATCH /v1/teams/:teamId/members/:userId.",
    authScopes: { authenticated: true },
    args: {
      teamId: t.arg.string({ required: true }),
      userId: t.arg.string({ required: true }),
      role: t.arg.string({ required: true, description: '"owner", "admin" or "member".' }),
    },
    resolve: (_root, args, ctx) => ctx.services.teams.updateMember(ctx.viewer!, args),
  }),
  removeTeamMember: t.field({
    type: RemovedMemberRef,
    description: 'Removes a member (owners and admins), or yourself (leave). REST: DELETE /v1/teams/:teamId/members/:userId.',
    authScopes: { authenticated: true },
    args: { teamId: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.removeMember(ctx.viewer!, args),
  }),
  setTeamBillingOwner: t.field({
    type: TeamRef,
    description: "Hands the team's billing to another owner (owners only). REST: PUT /v1/teams/:teamId/billing-owner.",
    authScopes: { authenticated: true },
    args: { teamId: t.arg.string({ required: true }), userId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.setBillingOwner(ctx.viewer!, args),
  }),
}));
