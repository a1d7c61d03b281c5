import type { RequestHeaders } from '../http/incoming.js';

/** Reading and writing the few cookies of browser sign-in (RFC 6265). */

export function readCookie(headers: RequestHeaders, name: string): string | null {
  const header = headers.get('cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  path?: string;
}

/** A Set-Cookie value: always HttpOnly (no page script can read it) and SameSite=Lax. */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? '/'}`, `Max-Age=${options.maxAge}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
