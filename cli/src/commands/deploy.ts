import { plural } from '../../../src/text.js';
import { deploy } from '../deploy.js';
import type { CommandContext } from './context.js';

/** wfctl deploy: creates or updates a deployment from a deploy file. */
export async function deployCommand(ctx: CommandContext, file: string, options: { dryRun?: boolean }): Promise<void> {
  const { out } = ctx;
  const result = await deploy({ api: ctx.api(), file, dryRun: !!options.dryRun, out });
  out.result(result, () =>
    out.line(
      result.dryRun
        ? `would ${result.action} the deployment '${result.name}' with ${plural((result as { workflowIds: string[] }).workflowIds.length, 'workflow')}`
        : `${result.action} ${(result as { deploymentId: string }).deploymentId}: ${(result as { mcpEndpoint: string }).mcpEndpoint}`,
    ),
  );
}
