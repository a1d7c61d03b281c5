import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl deployments list: the caller's deployments with their tool endpoints. */
export async function listDeployments(ctx: CommandContext, options: { status?: string }): Promise<void> {
  const { out } = ctx;
  if (options.status && !['active', 'inactive'].includes(options.status))
    throw new CliError(
      'USAGE',
      `--status must be active or inactive, not '${options.status}'`,
      'Pass --status active or --status inactive.',
    );
  const list = await ctx.api().list(`/deployments${options.status ? `?status=${options.status}` : ''}`);
  out.result({ deployments: list }, () => {
    for (const d of list) out.line(`${d.deploymentId}  ${d.status.padEnd(8)}  ${d.name}  ${d.mcpEndpoint}`);
    if (list.length === 0) out.line('no deployments yet: wfctl deploy');
  });
}
