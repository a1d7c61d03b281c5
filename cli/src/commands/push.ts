import { checkDir, push } from '../manifests.js';
import type { CommandContext } from './context.js';

/** wfctl push: creates or updates workflows from files. */
export async function pushCommand(
  ctx: CommandContext,
  files: string[],
  options: { dir: string; force?: boolean; dryRun?: boolean },
): Promise<void> {
  const { out } = ctx;
  const result = await push({ api: ctx.api(), dir: checkDir(options.dir), files, force: !!options.force, dryRun: !!options.dryRun, out });
  out.result(result, () => {
    const verb = options.dryRun ? 'would ' : '';
    for (const c of result.created) out.line(`${verb}create ${c.file}${c.workflowId ? ` → ${c.workflowId} ${c.to}` : ''}`);
    for (const u of result.updated) out.line(`${verb}update ${u.file} (${u.workflowId}${u.to ? ` ${u.from} → ${u.to}` : ''})`);
    out.line(
      `${result.created.length} created, ${result.updated.length} updated, ${result.unchanged.length} unchanged${options.dryRun ? ' (dry run)' : ''}`,
    );
  });
}
