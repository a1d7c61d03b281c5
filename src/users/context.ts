import type { Viewer } from '../auth/viewer.js';
import { BoundedCache } from '../cache/bounded.js';
import type { ServiceDeps } from '../service-deps.js';

export interface UserServiceHooks {
  /** Runs before anything is deleted; throwing stops the deletion (the paid subscription is cancelled here). */
  beforeDelete?: (userId: string) => Promise<void>;
  /** Runs after the deletion committed (caches of the user are dropped here). */
  afterDelete?: (userId: string) => void;
}

/** A resolved viewer as cached, by issuer + subject. */
export interface CachedViewer {
  viewer: Viewer;
  until: number;
  /** When the entry was read: a token issued after it (a new sign-in) reads afresh. */
  resolvedAt: number;
  /** When an earlier account of the identity was deleted. */
  deletedAt: number | null;
}

/** What the user operations are built from: the database, the clock, the hooks and the viewer cache. */
export interface UserContext extends Pick<ServiceDeps, 'db' | 'clock'> {
  hooks: UserServiceHooks;
  viewers: BoundedCache<string, CachedViewer>;
}

const VIEWER_CACHE_SIZE = 10_000;

/**
 * issuer + subject → viewer. Saves a query on every request; an account deleted on another
 * instance is noticed within the TTL (writes check the user row under lock meanwhile, and
 * /users/me answers 401).
 */
export function newViewerCache(): BoundedCache<string, CachedViewer> {
  return new BoundedCache<string, CachedViewer>('viewers', VIEWER_CACHE_SIZE);
}
