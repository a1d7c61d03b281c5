import type { CommandContext } from './context.js';

/** wfctl teams create: a new team, with you as its owner and billing owner. */
export async function createTeam(ctx: CommandContext, name: string, options: { dryRun?: boolean }): Promise<void> {
  const { out } = ctx;
  if (options.dryRun) return out.result({ dryRun: true, name }, () => out.line(`would create team ${name}; nothing was sent`));
  const team = await ctx.api().call('POST', '/teams', { name });
  out.result(team, () => out.line(`created team ${team.teamId}  ${team.name} (you are its owner)`));
}
