import type { Prisma } from '@prisma/client';
import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors.js';
import type { UserContext } from './context.js';
import { USER_WITH_COUNTS } from './sql.js';

/**
 * The user of spec 2.6 as Prisma names it: the columns and the three counts (personal workflows,
 * personal deployments, library entries that are subscriptions; a team's own count toward the
 * team). The selection of the User type, which USER_WITH_COUNTS answers with one statement.
 */
export const USER_SELECT = {
  id: true,
  email: true,
  createdAt: true,
  updatedAt: true,
  _count: {
    select: {
      workflows: { where: { teamId: null } },
      deployments: { where: { teamId: null } },
      library: { where: { sourceType: 'subscribed' } },
    },
  },
} as const satisfies Prisma.UserSelect;

export type UserRow = Prisma.UserGetPayload<{ select: typeof USER_SELECT }>;

/** Prisma's select for the user a GraphQL selection asks for (plugin-prisma's plan). */
export type UserQuery = { select?: Prisma.UserSelect; include?: Prisma.UserInclude };

/** Whether the one statement's row answers `query`: it asks only for columns and counts of USER_SELECT. */
function answeredByStatement(query: UserQuery): boolean {
  if (query.include && Object.keys(query.include).length > 0) return false;
  const counts = USER_SELECT._count.select as Record<string, unknown>;
  for (const [key, value] of Object.entries(query.select ?? {})) {
    if (!value) continue;
    if (key === '_count') {
      const asked = typeof value === 'object' && 'select' in value ? (value.select as Record<string, unknown>) : null;
      if (!asked) return false;
      for (const [relation, count] of Object.entries(asked)) {
        if (count && JSON.stringify(count) !== JSON.stringify(counts[relation])) return false;
      }
    } else if (!(key in USER_SELECT) || value !== true) return false;
  }
  return true;
}

/** The counts as USER_WITH_COUNTS names them. */
interface UserCounts {
  workflowCount: number;
  deploymentCount: number;
  subscriptionCount: number;
}

/**
 * The viewer's user as `query` asks for it. The dashboard reads it on every load, so what the
 * User type selects (USER_SELECT's columns and counts) is read with one statement of its own;
 * a selection beyond it is read through Prisma.
 */
export async function getMe(ctx: UserContext, viewer: Viewer, query: UserQuery = { select: USER_SELECT }): Promise<Pick<UserRow, 'id'>> {
  if (!answeredByStatement(query)) {
    const user = await ctx.db.prisma.user.findUnique({ where: { id: viewer.userId }, ...query });
    if (!user) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
    return user;
  }
  const [user] = await ctx.db.read<Pick<UserRow, 'id' | 'email' | 'createdAt' | 'updatedAt'> & UserCounts>(USER_WITH_COUNTS, [
    viewer.userId,
  ]);
  if (!user) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
  const row: UserRow = {
    id: user.id,
    email: user.email,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    _count: { workflows: user.workflowCount, deployments: user.deploymentCount, library: user.subscriptionCount },
  };
  return row;
}
