import { printUsage, type UsageReport } from '../usage.js';
import type { CommandContext } from './context.js';

/** wfctl usage: a deployment's calls by tool, adapter and day. */
export async function usageCommand(ctx: CommandContext, deploymentId: string, options: { period?: string }): Promise<void> {
  const usage = (await ctx
    .api()
    .call(
      'GET',
      `/deployments/${encodeURIComponent(deploymentId)}/usage${options.period ? `?period=${encodeURIComponent(options.period)}` : ''}`,
    )) as UsageReport;
  ctx.out.result(usage, () => printUsage(usage, ctx.out));
}
