import type { CommandContext } from './context.js';

/** wfctl fork: a workflow copied into the caller's own workflows. */
export async function fork(ctx: CommandContext, workflowId: string, options: { name?: string; dryRun?: boolean }): Promise<void> {
  const { out } = ctx;
  const client = ctx.api();
  if (options.dryRun) {
    const workflow = await client.call('GET', `/workflows/${encodeURIComponent(workflowId)}`);
    return out.result({ dryRun: true, workflowId, name: options.name ?? `${workflow.name} (copy)` }, () =>
      out.line(`would fork ${workflowId} (${workflow.name})`),
    );
  }
  const made = await client.call('POST', `/workflows/${encodeURIComponent(workflowId)}/fork`, options.name ? { name: options.name } : {});
  out.result(made, () => out.line(`forked into ${made.workflowId} (${made.name}); wfctl pull writes it as a file`));
}
