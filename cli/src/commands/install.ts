import { install, installFailure, printInstall } from '../install.js';
import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl install: a deployment's server written into each agent client's own configuration file. */
export async function installCommand(
  ctx: CommandContext,
  deploymentId: string,
  options: { client: string; apiKey?: string; oauth?: boolean; dryRun?: boolean },
): Promise<void> {
  const { out } = ctx;
  if (options.oauth && options.apiKey)
    throw new CliError('USAGE', '--oauth and --api-key exclude each other', 'Pass one of them, or neither (a key is then made once).');
  const result = await install({
    api: ctx.api(),
    deploymentId,
    clients: options.client,
    apiKey: options.oauth ? undefined : (options.apiKey ?? (process.env.WFCTL_INSTALL_KEY || undefined)),
    oauth: !!options.oauth,
    dryRun: !!options.dryRun,
    out,
  });
  const failure = installFailure(result);
  if (failure && ctx.json) throw failure;
  out.result(result, () => printInstall(result, out));
  if (failure) throw failure;
}
