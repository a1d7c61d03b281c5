import { withContext, type ServiceDeps } from '../service-deps.js';
import { newViewerCache, type UserServiceHooks } from './context.js';
import { deleteAccount } from './deletion.js';
import { setDisplayName, settleNameKeys } from './display-names.js';
import { getMe } from './me.js';
import { forgetIdentity, resolveViewer } from './viewers.js';

/**
 * The user service: each operation a function of the module named for its concern (viewers,
 * the viewer's own user, display names, deletion), given the database, clock, hooks and the
 * cache of resolved viewers here.
 */

export type { UserServiceHooks } from './context.js';
export type { AccountDeletion, DeletionStats } from './deletion.js';
export { USER_SELECT, type UserQuery } from './me.js';

export function createUserService({ db, clock }: ServiceDeps, hooks: UserServiceHooks = {}) {
  return withContext(
    { db, clock, hooks, viewers: newViewerCache() },
    { resolveViewer, forgetIdentity, getMe, setDisplayName, settleNameKeys, deleteAccount },
  );
}
