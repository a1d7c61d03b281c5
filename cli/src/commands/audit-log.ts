import { CliError } from '../output.js';
import type { CommandContext } from './context.js';

export interface AuditLogOptions {
  team?: string;
  action?: string;
  actor?: string;
  targetType?: string;
  since?: string;
  until?: string;
  limit: string;
  csv?: boolean;
}

/** The service's query of the filters given (it checks each and names the one it refuses). */
function filterQuery(options: AuditLogOptions): URLSearchParams {
  const params = new URLSearchParams();
  const filters: Array<[string, string | undefined]> = [
    ['action', options.action],
    ['actorUserId', options.actor],
    ['targetType', options.targetType],
    ['since', options.since],
    ['until', options.until],
  ];
  for (const [name, value] of filters) if (value !== undefined) params.set(name, value);
  return params;
}

/** wfctl audit-log: a team's audit log (owners and admins) or your own security events, newest first; --csv prints the export. */
export async function auditLogCommand(ctx: CommandContext, options: AuditLogOptions): Promise<void> {
  const { out } = ctx;
  const base = options.team ? `/teams/${encodeURIComponent(options.team)}/audit-log` : '/users/me/audit-log';
  const params = filterQuery(options);
  if (options.csv) {
    const csv = await ctx.api().text(`${base}.csv${params.size ? `?${params}` : ''}`);
    if (out.json) out.result({ csv });
    else process.stdout.write(csv);
    return;
  }
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CliError('USAGE', `--limit must be a whole number from 1 to 100, not '${options.limit}'`, 'Pass --limit 50, for example.');
  params.set('limit', String(limit));
  const entries = await ctx.api().call('GET', `${base}?${params}`);
  out.result({ entries }, () => {
    for (const e of entries)
      out.line(
        `${e.at}  ${e.action.padEnd(22)}  by ${e.actorUserId ?? 'the service'}  ${e.targetType} ${e.targetId}  ${JSON.stringify(e.details)}`,
      );
    if (entries.length === 0) out.line('no entries');
  });
}
