import { randomBytes } from 'node:crypto';

/**
 * Time and identifiers come from here so that tests can fix them.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A random identifier with a readable prefix, e.g. `wf_5kq3…` (20 random base32 characters, 100 bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}
