import { createHash } from 'node:crypto';

import type { VerifiedIdentity } from './verify.js';

interface Entry {
  identity: VerifiedIdentity;
  /** Epoch milliseconds after which the entry must not be served. */
  expiresAt: number;
}

/**
 * Bounded LRU of successful verifications. Keys are SHA-256 digests so that the
 * process never holds bearer tokens longer than the request that carried them.
 */
export class VerifiedTokenCache {
  // A Map iterates in insertion order; re-inserting on hit keeps the least
  // recently used entry first, which is the one to evict.
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  get(key: string, now: number): VerifiedIdentity | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry.identity;
  }

  /** `expSeconds` is the token's `exp`; the entry never outlives it. */
  set(key: string, identity: VerifiedIdentity, expSeconds: number, now: number): void {
    const expiresAt = Math.min(expSeconds * 1000, now + this.maxAgeMs);
    if (expiresAt <= now || this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { identity, expiresAt });
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
