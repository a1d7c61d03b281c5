import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Time and identifiers come from here so that tests can fix them.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Tests only (TEST_CLOCK_OFFSET_FILE, refused in production): the system clock moved forward by the
 * milliseconds written in a file, read again on every call, so a test can move the time of a
 * service running in another process. A missing or empty file is no offset.
 */
export function fileOffsetClock(path: string): Clock {
  return {
    now() {
      let offset = 0;
      try {
        const text = readFileSync(path, 'utf8').trim();
        if (text) offset = Number(text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (!Number.isSafeInteger(offset)) throw new Error(`the clock offset file holds no whole number of milliseconds`);
      return new Date(Date.now() + offset);
    },
  };
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A random identifier with a readable prefix, e.g. `wf_5kq3…` (20 random base32 characters, 100 bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}
