import { checkDir, ensureDir, pull } from '../manifests.js';
import type { CommandContext } from './context.js';

/** wfctl pull: the caller's workflows as files, and the state file. */
export async function pullCommand(
  ctx: CommandContext,
  options: { dir: string; format: 'yaml' | 'json'; force?: boolean; dryRun?: boolean },
): Promise<void> {
  const { out } = ctx;
  const result = await pull({
    api: ctx.api(),
    dir: options.dryRun ? checkDir(options.dir) : ensureDir(options.dir),
    format: options.format,
    force: !!options.force,
    dryRun: !!options.dryRun,
    out,
  });
  out.result(result, () => {
    for (const w of result.written) out.line(`${options.dryRun ? 'would write' : 'wrote'} ${w.file} (${w.workflowId} ${w.version})`);
    out.line(`${result.written.length} written, ${result.unchanged.length} unchanged${options.dryRun ? ' (dry run)' : ''}`);
  });
}
