import { createHash } from 'node:crypto';

/** The key of a deleted account's record: a digest, so the identity itself is not kept. */
export function identityHash(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\u0000${subject}`, 'utf8').digest('hex');
}
