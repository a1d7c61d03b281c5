import { randomUUID } from 'node:crypto';
import type { Incoming } from './incoming.js';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is sane, otherwise a new one. */
export function requestIdOf(request: Incoming): string {
  const given = request.headers.get('x-request-id');
  return given && SANE.test(given) ? given : randomUUID();
}
