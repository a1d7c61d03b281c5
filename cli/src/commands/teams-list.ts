import type { CommandContext } from './context.js';

/** wfctl teams: the teams you are in, with your role in each. */
export async function listTeams(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const teams = await ctx.api().list('/teams');
  out.result({ teams }, () => {
    for (const t of teams) out.line(`${t.teamId}  ${t.role.padEnd(6)}  ${t.name}`);
    if (teams.length === 0) out.line('no teams yet: wfctl teams create <name>');
  });
}
