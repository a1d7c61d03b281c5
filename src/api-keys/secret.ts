import { hash, randomBytes } from 'node:crypto';

/**
 * The form of a personal API key's secret: `wfk_` and 40 base-62 characters (about 238 random
 * bits). The fixed prefix lets secret scanners find a leaked key and lets the service tell a key
 * from an ID token without trying to parse it.
 */
const API_KEY_PREFIX = 'wfk_';
const BODY_LENGTH = 40;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);
/** Characters of the secret shown in lists: the prefix and 8 more. */
const SHOWN = API_KEY_PREFIX.length + 8;

export function newApiKeySecret(): string {
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(BODY_LENGTH)) {
      // 248 = 4 × 62: bytes above it are dropped so every character is equally likely.
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

/** Whether a bearer token is meant as an API key (it may still be malformed). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

export function isWellFormedApiKey(token: string): boolean {
  return SHAPE.test(token);
}

/** What is stored: the secret has 238 random bits, so a plain SHA-256 cannot be reversed. */
export function hashApiKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function shownPrefixOf(secret: string): string {
  return secret.slice(0, SHOWN);
}
