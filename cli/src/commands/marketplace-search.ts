import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

/** wfctl marketplace search: public workflows found by text. */
export async function searchMarketplace(ctx: CommandContext, query: string, options: { category?: string; limit: string }): Promise<void> {
  const { out } = ctx;
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CliError('USAGE', `--limit must be a whole number from 1 to 100, not '${options.limit}'`, 'Pass --limit 20, for example.');
  const params = new URLSearchParams({ q: query, limit: String(limit) });
  if (options.category) params.set('category', options.category);
  const found = await ctx.api().call('GET', `/marketplace/search?${params}`);
  out.result({ workflows: found }, () => {
    for (const w of found)
      out.line(`${w.workflowId}  ${w.name}${w.stats ? `  ★ ${w.stats.rating ?? '-'} (${w.stats.subscribers ?? 0} subscribers)` : ''}`);
    if (found.length === 0) out.line('nothing found');
  });
}
