import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { connectionUsage, enforceAnonymousConnectionQuota, enforceConnectionQuota } from '../limits/quota.js';
import { ADAPTERS, isAdapter, type Adapter } from '../manifest/adapter-list.js';
import { CONNECTION_KNOWN, countDailyUsage, insertConnectionKey, touchLastConnected, USAGE_SINCE } from './sql.js';
import type { DeploymentUsageSummary, UsagePeriod, UsageReport } from './types.js';

/**
 * Connections to deployment endpoints. A connection is the first served request of a caller (a
 * user, or the address of an anonymous client) on an adapter of a deployment in a UTC day, in
 * either MCP era (docs/plans.md). Its key is a row of `mcp_connections`; only the request that
 * inserts the row counts the connection, per deployment, adapter and day (DeploymentUsage) and per
 * owner and UTC month (the plans engine's counter and quota, src/limits/quota.ts), all in one transaction,
 * so concurrent requests on several instances count each connection exactly once, and a refused
 * connection leaves no key behind.
 */

const DAY_MS = 86_400_000;

/** A burst of connections queues for pool connections; Prisma's 2 s default wait would fail some of them. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 10_000 };

/** The last day `utcDay` wrote, by its number since the epoch: every served request asks for today's. */
let lastDay = { number: Number.NaN, text: '' };

/** The UTC day of `date`, as YYYY-MM-DD. */
function utcDay(date: Date): string {
  const number = Math.floor(date.getTime() / DAY_MS);
  if (number !== lastDay.number) lastDay = { number, text: date.toISOString().slice(0, 10) };
  return lastDay.text;
}

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

function startOfUtcMonth(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

/** Calendar periods in UTC, ending today: today, this ISO week (from Monday), this month. */
function periodStart(period: UsagePeriod, now: Date): Date {
  const today = startOfUtcDay(now);
  if (period === 'day') return today;
  if (period === 'week') return new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * DAY_MS);
  return startOfUtcMonth(now);
}

/** Who makes a connection: `caller` names them (never from anything the client sends in `_meta`). */
export interface ConnectionCaller {
  /** `user:<userId>` or `address:<hash of the client address>`. */
  key: string;
  /** Anyone but the owner: counted against the anonymous part of the owner's month as well. */
  anonymous: boolean;
  /** The MCP client's `clientInfo.name`, when the request carries it: recorded with the connection it counts. */
  clientName?: string | null;
}

/** The most of a client's name a connection keeps: the name is the client's to choose. */
const CLIENT_NAME_MAX = 100;

/** Keys known to be counted, per instance; a key is never removed within its day, so a hit is always true. */
const ADMITTED_CACHE_LIMIT = 50_000;

/** One served request of a connection: whose deployment, on which adapter, by whom, when. */
interface ConnectionRequest {
  deploymentId: string;
  ownerId: string;
  adapter: Adapter;
  caller: ConnectionCaller;
  at: Date;
}

/**
 * The period's connections per client name (null: the request that counted it named none) and,
 * for a team's deployment, per current member of the team; most first.
 */
async function breakdown(
  prisma: Database['prisma'],
  deploymentId: string,
  teamId: string | null,
  from: Date,
): Promise<Pick<UsageReport, 'byMember' | 'byClient'>> {
  const where = { deploymentId, day: { gte: from } };
  const [clients, callers] = await Promise.all([
    prisma.mcpConnection.groupBy({ by: ['clientName'], where, _count: { _all: true } }),
    teamId === null
      ? []
      : prisma.mcpConnection.groupBy({ by: ['caller'], where: { ...where, caller: { startsWith: 'user:' } }, _count: { _all: true } }),
  ]);
  const members = teamId === null ? new Set<string>() : await membersOf(prisma, teamId);
  const mostFirst = <T extends { count: number }>(rows: T[], key: (r: T) => string) =>
    rows.sort((a, b) => b.count - a.count || key(a).localeCompare(key(b)));
  return {
    byMember: mostFirst(
      callers.map((c) => ({ userId: c.caller.slice('user:'.length), count: c._count._all })).filter((m) => members.has(m.userId)),
      (m) => m.userId,
    ),
    byClient: mostFirst(
      clients.map((c) => ({ client: c.clientName, count: c._count._all })),
      (c) => c.client ?? '',
    ),
  };
}

async function membersOf(prisma: Database['prisma'], teamId: string): Promise<Set<string>> {
  const rows = await prisma.teamMember.findMany({ where: { teamId }, select: { userId: true } });
  return new Set(rows.map((r) => r.userId));
}

export function createUsageStore(db: Database) {
  const prisma = db.prisma;
  const admitted = new Set<string>();

  /**
   * Admits one served request: a request whose connection (caller, adapter, deployment, day) is
   * already counted passes; the first one of a connection counts it, or is refused with the
   * quota's error (PLAN_LIMIT_EXCEEDED) and counts nothing. Returns whether it counted one.
   */
  async function admitConnection(input: ConnectionRequest): Promise<boolean> {
    const { deploymentId, adapter, caller, at } = input;
    const day = utcDay(at);
    const cacheKey = `${day}\u0000${deploymentId}\u0000${adapter}\u0000${caller.key}`;
    if (admitted.has(cacheKey)) return false;
    const known = await db.read<{ one: number }>(CONNECTION_KNOWN, [deploymentId, adapter, caller.key, day]);
    const counted = known.length ? false : await recordConnection(input);
    if (admitted.size >= ADMITTED_CACHE_LIMIT) admitted.clear();
    admitted.add(cacheKey);
    return counted;
  }

  /**
   * Counts one connection unless its key is already there (a concurrent request of the same
   * connection waits on the key's insert and then counts nothing). The deployment row is touched
   * first, so a deployment deleted in the meantime fails the whole transaction (NOT_FOUND)
   * instead of counting for nobody.
   */
  async function recordConnection(input: ConnectionRequest): Promise<boolean> {
    const { deploymentId, ownerId, adapter, caller, at } = input;
    const day = utcDay(at);
    return prisma.$transaction(async (tx) => {
      const clientName = caller.clientName ? caller.clientName.slice(0, CLIENT_NAME_MAX) : null;
      const inserted = await tx.$executeRaw(insertConnectionKey({ deploymentId, adapter, caller: caller.key, day }, clientName));
      if (inserted === 0) return false;
      const touched = await tx.$executeRaw(touchLastConnected(deploymentId, at));
      if (touched === 0) throw new AppError('NOT_FOUND', `deployment '${deploymentId}' was not found`, { id: deploymentId });
      await tx.$executeRaw(countDailyUsage({ deploymentId, adapter, day }));
      if (caller.anonymous) await enforceAnonymousConnectionQuota(tx, ownerId, at);
      await enforceConnectionQuota(tx, ownerId, at);
      return true;
    }, TRANSACTION_OPTIONS);
  }

  /** `usage` of each deployment in a list: one statement for the whole page. */
  async function summaries(
    deployments: readonly { id: string; lastConnectedAt: Date | null }[],
    now: Date,
  ): Promise<Map<string, DeploymentUsageSummary>> {
    const sums = deployments.length
      ? await db.read<{ deploymentId: string; total: string }>(USAGE_SINCE, [deployments.map((d) => d.id), utcDay(startOfUtcMonth(now))])
      : [];
    const byId = new Map(sums.map((s) => [s.deploymentId, Number(s.total)]));
    return new Map(
      deployments.map((d) => [
        d.id,
        { connectionsThisMonth: byId.get(d.id) ?? 0, lastConnectedAt: d.lastConnectedAt?.toISOString() ?? null },
      ]),
    );
  }

  async function report(input: {
    deploymentId: string;
    teamId: string | null;
    ownerId: string;
    period: UsagePeriod;
    now: Date;
  }): Promise<UsageReport> {
    const { deploymentId, ownerId, period, now } = input;
    const from = periodStart(period, now);
    const [rows, month, split] = await Promise.all([
      prisma.deploymentUsage.findMany({ where: { deploymentId, day: { gte: from } }, select: { adapter: true, day: true, count: true } }),
      connectionUsage(prisma, ownerId, now),
      breakdown(prisma, deploymentId, input.teamId, from),
    ]);
    const byAdapter = Object.fromEntries(ADAPTERS.map((a) => [a, 0])) as Record<Adapter, number>;
    const perDay = new Map<string, number>();
    let total = 0;
    for (const row of rows) {
      total += row.count;
      if (isAdapter(row.adapter)) byAdapter[row.adapter] += row.count;
      const date = utcDay(row.day);
      perDay.set(date, (perDay.get(date) ?? 0) + row.count);
    }
    const byDay: { date: string; count: number }[] = [];
    for (let t = from.getTime(); t <= now.getTime(); t += DAY_MS) {
      const date = utcDay(new Date(t));
      byDay.push({ date, count: perDay.get(date) ?? 0 });
    }
    return {
      deploymentId,
      period,
      from: utcDay(from),
      to: utcDay(now),
      // The period's connections of this deployment, against what is left of the owner's month.
      connections: { total, limit: month.limit, remaining: month.remaining },
      byAdapter,
      byDay,
      ...split,
    };
  }

  return { admitConnection, summaries, report };
}
