/**
 * What the audit logs record (docs/teams.md, "Audit log"): plain data, read by the service, which
 * accepts these names as filters, and by the dashboard, which offers them.
 */

/** The actions of a team's log. */
export const TEAM_AUDIT_ACTIONS = [
  'team.created',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'invitation.revoked',
  'billing_owner.changed',
  'plan.changed',
  'workflow.created',
  'workflow.updated',
  'workflow.deleted',
  'workflow.moved',
  'deployment.created',
  'deployment.updated',
  'deployment.deleted',
  'deployment.moved',
  'api_key.created',
  'api_key.revoked',
] as const;

/** The actions of a person's own log: their security events. */
export const PERSONAL_AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'oauth_connection.granted',
  'oauth_connection.revoked',
  'session.signed_in',
] as const;

/** Every action an entry may record. */
export const AUDIT_ACTIONS = [...new Set([...TEAM_AUDIT_ACTIONS, ...PERSONAL_AUDIT_ACTIONS])];

export type AuditAction = (typeof TEAM_AUDIT_ACTIONS)[number] | (typeof PERSONAL_AUDIT_ACTIONS)[number];

/** What the entries of each log are about. */
export const TEAM_AUDIT_TARGETS = ['team', 'user', 'invitation', 'workflow', 'deployment', 'api_key'] as const;
export const PERSONAL_AUDIT_TARGETS = ['api_key', 'connected_app', 'sign_in_method'] as const;
