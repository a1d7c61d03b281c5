import { plural } from '../../src/text.js';
import type { Output } from './output.js';

/** `GET /v1/deployments/:id/usage` (docs/openapi.json, DeploymentUsageReport). */
export interface UsageReport {
  deploymentId: string;
  period: string;
  from: string;
  to: string;
  connections: { total: number; limit: number; remaining: number };
  byAdapter: Record<string, number>;
  byDay: { date: string; count: number }[];
}

/** `wfctl usage` for a person: the totals, the quota, and the counts by adapter and by day. */
export function printUsage(usage: UsageReport, out: Output): void {
  const day = (iso: string) => iso.slice(0, 10);
  out.line(
    `${usage.deploymentId}, this ${usage.period} (${day(usage.from)} to ${day(usage.to)}): ${plural(usage.connections.total, 'connection')}`,
  );
  out.line(`  quota: ${usage.connections.remaining} of ${usage.connections.limit} left this month, across all your deployments`);
  out.line(
    `  by adapter: ${Object.entries(usage.byAdapter)
      .map(([adapter, count]) => `${adapter} ${count}`)
      .join(', ')}`,
  );
  const days = usage.byDay.filter((d) => d.count > 0);
  if (days.length === 0) out.line('  no connection on any day of the period');
  else for (const d of days) out.line(`  ${day(d.date)}  ${d.count}`);
}
