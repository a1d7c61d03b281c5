import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl teams members: a team's members with their roles. */
export async function listTeamMembers(ctx: CommandContext, teamId: string): Promise<void> {
  const { out } = ctx;
  const members = await teamMembers(ctx, teamId);
  out.result({ members }, () => {
    for (const m of members) out.line(`${m.userId}  ${m.role.padEnd(6)}  ${m.email ?? ''}${m.displayName ? `  (${m.displayName})` : ''}`);
  });
}

function teamMembers(ctx: CommandContext, teamId: string) {
  return ctx.api().list(`/teams/${encodeURIComponent(teamId)}/members`);
}

/** A member of the team, for a dry run of a change to them: NOT_FOUND when there is none. */
export async function memberOf(ctx: CommandContext, teamId: string, userId: string) {
  const member = (await teamMembers(ctx, teamId)).find((m) => m.userId === userId);
  if (!member) throw new CliError('NOT_FOUND', `${userId} is not a member of ${teamId}`, `List them with wfctl teams members ${teamId}.`);
  return member;
}
