import type { CommandContext } from './context.js';

/** wfctl teams invite: an invitation by e-mail; a service that sends no e-mail gives the link to pass on. */
export async function inviteToTeam(
  ctx: CommandContext,
  teamId: string,
  email: string,
  options: { role: string; dryRun?: boolean },
): Promise<void> {
  const { out } = ctx;
  const team = `/teams/${encodeURIComponent(teamId)}`;
  if (options.dryRun) {
    // Reading the members checks that the team is one of yours.
    await ctx.api().call('GET', `${team}/members?limit=1`);
    return out.result({ dryRun: true, teamId, email, role: options.role }, () =>
      out.line(`would invite ${email} to ${teamId} as ${options.role}; nothing was sent`),
    );
  }
  const invitation = await ctx.api().call('POST', `${team}/invitations`, { email, role: options.role });
  out.result(invitation, () => {
    out.line(`invited ${invitation.email} as ${invitation.role} (${invitation.invitationId}), valid until ${invitation.expiresAt}`);
    if (invitation.acceptUrl) out.line(`this service sends no e-mail: pass on the link yourself: ${invitation.acceptUrl}`);
    else out.line('an e-mail with the link to join was sent');
  });
}
