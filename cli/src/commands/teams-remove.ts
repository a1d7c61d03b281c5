import type { CommandContext } from './context.js';
import { memberOf } from './teams-members.js';

/** wfctl teams remove: a member out of the team (owners and admins), or yourself (leave). */
export async function removeTeamMember(ctx: CommandContext, teamId: string, userId: string, options: { dryRun?: boolean }): Promise<void> {
  const { out } = ctx;
  if (options.dryRun) {
    const member = await memberOf(ctx, teamId, userId);
    return out.result({ dryRun: true, teamId, userId, role: member.role }, () =>
      out.line(`would remove ${userId} (${member.role}) from ${teamId}; nothing was sent`),
    );
  }
  const removed = await ctx.api().call('DELETE', `/teams/${encodeURIComponent(teamId)}/members/${encodeURIComponent(userId)}`);
  out.result(removed, () => out.line(`removed ${userId} from ${teamId}`));
}
