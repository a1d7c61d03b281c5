import type { CommandContext } from './context.js';
import { memberOf } from './teams-members.js';

/** wfctl teams role: a member's new role (owners and admins; ownership by owners only). */
export async function setTeamRole(
  ctx: CommandContext,
  teamId: string,
  userId: string,
  role: string,
  options: { dryRun?: boolean },
): Promise<void> {
  const { out } = ctx;
  if (options.dryRun) {
    const member = await memberOf(ctx, teamId, userId);
    return out.result({ dryRun: true, teamId, userId, from: member.role, to: role }, () =>
      out.line(`would make ${userId} ${role} of ${teamId} (now ${member.role}); nothing was sent`),
    );
  }
  const member = await ctx.api().call('PATCH', `/teams/${encodeURIComponent(teamId)}/members/${encodeURIComponent(userId)}`, { role });
  out.result(member, () => out.line(`${member.userId} is now ${member.role} of ${teamId}`));
}
