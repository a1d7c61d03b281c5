import { AppError } from '../errors.js';
import { textResponse, type TextReply } from '../http/text-response.js';
import type { StoredAnswer } from '../idempotency/service.js';
import type { RouteSpec } from './routes.js';

/**
 * The HTTP side of optimistic concurrency and idempotent creates (docs/concurrency.md): the ETag a
 * revision is sent as, the revision an If-Match header asks for, and what identifies a create for
 * its Idempotency-Key.
 */

/** A revision as a strong entity tag. */
export function etagOf(revision: number): string {
  return `"${revision}"`;
}

/** A revision no resource has: what an entity tag that is not one of ours stands for. */
const NO_REVISION = 0;

/**
 * The revision an If-Match header requires, or null for no condition (no header, or `*`, which any
 * existing resource matches; the service answers 404 for one that does not exist). The comparison
 * is strong (RFC 9110 13.1.1): a weak tag or one the service never gave matches nothing, so the
 * write is refused with 412. One entity tag is accepted: a list is refused with 400, since a client
 * only ever holds the one it read.
 */
export function expectedRevisionOf(header: string | null): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (value === '*') return null;
  const tags = value.match(/(?:W\/)?"[^"]*"/g) ?? [];
  if (tags.length !== 1 || tags[0] !== value) {
    throw new AppError(
      'VALIDATION_ERROR',
      'If-Match must be * or one entity tag in double quotes, as the ETag header of a GET gives it (e.g. If-Match: "3")',
      { field: 'If-Match' },
    );
  }
  const match = /^"([1-9]\d{0,9})"$/.exec(tags[0]!);
  const revision = match ? Number(match[1]) : NO_REVISION;
  return revision <= 2_147_483_647 ? revision : NO_REVISION;
}

/** Every REST POST that creates a resource (answers 201) takes an Idempotency-Key. */
export function createsResource(spec: RouteSpec): boolean {
  return spec.method === 'POST' && spec.status === 201;
}

/** JSON with its object keys sorted: the same body in another key order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** What a repeat must send again to get the first answer: the method, the path and the body. */
export function fingerprintOf(method: string, path: string, body: Record<string, unknown> | undefined): string {
  return `${method} ${path}\n${canonicalJson(body ?? {})}`;
}

/** The first answer again, marked as a replay (as Stripe marks it). */
export function replayOf(answer: StoredAnswer): TextReply {
  return textResponse(answer.body, { status: answer.status, headers: { ...answer.headers, 'idempotent-replayed': 'true' } });
}
