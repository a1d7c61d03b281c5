import { hash } from 'node:crypto';

import type { VerifiedIdentity } from './viewer.js';

interface Entry {
  identity: VerifiedIdentity;
  /** Epoch milliseconds after which the entry must not be served. */
  expiresAt: number;
  /** When the entry last moved to the recent end. */
  touchedAt: number;
}

/**
 * Recency is tracked to this granularity. Moving an entry on every hit would store the hit's new
 * key string and churn the Map's table on every request; the strings and tables, kept for about
 * the time between two requests of one token, outlived young-generation collections and filled
 * the old generation (docs/performance.md, "Garbage collection").
 */
const TOUCH_INTERVAL_MS = 1000;

/**
 * Bounded LRU of successful verifications. Keys are SHA-256 digests so that the
 * process never holds bearer tokens longer than the request that carried them.
 */
export class VerifiedTokenCache {
  // A Map iterates in insertion order; re-inserting on a hit (at most once per TOUCH_INTERVAL_MS)
  // keeps the least recently used entry first, which is the one to evict.
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url');
  }

  get(key: string, now: number): VerifiedIdentity | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (now - entry.touchedAt >= TOUCH_INTERVAL_MS) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.touchedAt = now;
    }
    return entry.identity;
  }

  /** `expSeconds` is the token's `exp`; the entry never outlives it. */
  set(key: string, identity: VerifiedIdentity, expSeconds: number, now: number): void {
    const expiresAt = Math.min(expSeconds * 1000, now + this.maxAgeMs);
    if (expiresAt <= now || this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { identity, expiresAt, touchedAt: now });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
