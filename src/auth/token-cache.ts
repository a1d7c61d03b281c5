import { hash } from 'node:crypto';

import { BoundedCache } from '../cache/bounded.js';
import type { VerifiedIdentity } from './viewer.js';

interface Entry {
  identity: VerifiedIdentity;
  /** Epoch milliseconds after which the entry must not be served. */
  expiresAt: number;
}

/**
 * Bounded LRU of successful verifications (the cache `verified_tokens`). Keys are SHA-256 digests
 * so that the process never holds bearer tokens longer than the request that carried them.
 */
export class VerifiedTokenCache {
  private readonly entries: BoundedCache<string, Entry> | null;

  constructor(
    maxEntries: number,
    private readonly maxAgeMs: number,
  ) {
    this.entries = maxEntries > 0 ? new BoundedCache('verified_tokens', maxEntries) : null;
  }

  static keyOf(token: string): string {
    return hash('sha256', token, 'base64url');
  }

  get(key: string, now: number): VerifiedIdentity | undefined {
    return this.entries?.get(key, (entry) => entry.expiresAt > now)?.identity;
  }

  /** `expSeconds` is the token's `exp`; the entry never outlives it. */
  set(key: string, identity: VerifiedIdentity, expSeconds: number, now: number): void {
    const expiresAt = Math.min(expSeconds * 1000, now + this.maxAgeMs);
    if (expiresAt <= now) return;
    this.entries?.set(key, { identity, expiresAt });
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  clear(): void {
    this.entries?.clear();
  }
}
