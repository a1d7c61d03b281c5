import type { Viewer } from '../auth/viewer.js';
import { AppError, validationError, type FieldProblem } from '../errors.js';
import type { UserContext } from './context.js';
import type { UserQuery } from './me.js';
import { checkDisplayName, type CheckedName } from './names.js';
import { lockNameKeys, nameTakenBy, UNSETTLED_NAMES } from './sql.js';

/** Users' public display names: set by their owner, checked against everyone else's. */

function nameTaken(name: string): AppError {
  return new AppError(
    'CONFLICT',
    `displayName '${name}' is, or looks like, another user's display name; choose one that people cannot take for theirs`,
    { field: 'displayName', reason: 'name_taken' },
  );
}

/**
 * Sets the viewer's public display name (shown as the author of workflows and reviews); an empty
 * name clears it, and a pseudonym stands in. Taken from the identity provider's `name` claim when
 * the account is made; after that only this changes it.
 */
export async function setDisplayName(ctx: UserContext, viewer: Viewer, displayName: string, query: UserQuery = {}) {
  const prisma = ctx.db.prisma;
  const problems: FieldProblem[] = [];
  const checked = checkDisplayName(displayName, viewer.userId, problems);
  if (problems.length > 0) throw validationError(problems);
  const updated = await prisma.$transaction(async (tx) => {
    // Two users choosing confusable names at once: the second waits for the first and sees it.
    await tx.$executeRaw(lockNameKeys(checked.keys));
    const [taken] = await tx.$queryRaw<{ id: string }[]>(nameTakenBy(checked.keys, viewer.userId));
    if (taken) throw nameTaken(checked.name!);
    return tx.user.updateMany({ where: { id: viewer.userId }, data: { displayName: checked.name, displayNameKeys: checked.keys } });
  });
  if (updated.count === 0) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
  return prisma.user.findUniqueOrThrow({ where: { id: viewer.userId }, ...query });
}

/** `raw` as the display name of user `userId` when every rule lets it be, else null. */
export async function acceptableName(ctx: UserContext, raw: string, userId: string): Promise<CheckedName | null> {
  const problems: FieldProblem[] = [];
  const checked = checkDisplayName(raw, userId, problems);
  if (problems.length > 0 || !checked.name) return null;
  const [taken] = await ctx.db.prisma.$queryRaw<{ id: string }[]>(nameTakenBy(checked.keys, userId));
  return taken ? null : checked;
}

/**
 * Gives every display name written before names had keys its keys, oldest account first, and
 * clears the names that break a rule of names: hidden characters, the form of a handle, or a
 * collision with an older account's name (whose owner keeps it). Runs at start; a settled
 * database has nothing to do (one indexed read). Bounded: `maxRows` per call.
 */
export async function settleNameKeys(ctx: UserContext, maxRows = 100_000): Promise<{ kept: number; cleared: number }> {
  let kept = 0;
  let cleared = 0;
  while (kept + cleared < maxRows) {
    const rows = await ctx.db.read<{ id: string; displayName: string }>(UNSETTLED_NAMES, [Math.min(500, maxRows - kept - cleared)]);
    if (rows.length === 0) break;
    for (const row of rows) {
      const name = await acceptableName(ctx, row.displayName, row.id);
      if (name) kept += 1;
      else cleared += 1;
      await ctx.db.prisma.user.updateMany({
        where: { id: row.id },
        data: name ? { displayName: name.name, displayNameKeys: name.keys } : { displayName: null, displayNameKeys: [] },
      });
    }
  }
  return { kept, cleared };
}
