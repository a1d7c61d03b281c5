import type { CommandContext } from './context.js';

/** wfctl subscribe: a public workflow added to the caller's library (kept up to date). */
export async function subscribe(ctx: CommandContext, workflowId: string, options: { dryRun?: boolean }): Promise<void> {
  const { out } = ctx;
  const client = ctx.api();
  if (options.dryRun) {
    const workflow = await client.call('GET', `/workflows/${encodeURIComponent(workflowId)}`);
    return out.result({ dryRun: true, workflowId, name: workflow.name }, () =>
      out.line(`would subscribe to ${workflowId} (${workflow.name})`),
    );
  }
  const entry = await client.call('POST', `/library/${encodeURIComponent(workflowId)}`, {});
  out.result(entry, () => out.line(`subscribed to ${workflowId}`));
}
