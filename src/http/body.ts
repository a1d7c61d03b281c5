import { isUtf8 } from 'node:buffer';
import { AppError } from '../errors.js';
import type { Incoming } from './incoming.js';

/**
 * Reads a request body up to `limit` bytes. A larger body is refused as soon as the limit is
 * crossed (413), whether or not the client declared its length.
 */
export async function readBodyText(request: Incoming, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (request.readText) {
    const text = await request.readText(limit);
    if (text === null) throw tooLarge(limit);
    return text;
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return decodeBody(Buffer.concat(chunks));
}

/**
 * A body's bytes as text. Bytes that are not UTF-8 are refused (400), never replaced: text
 * decoded with replacement characters would be stored altered.
 */
export function decodeBody(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new AppError('VALIDATION_ERROR', 'the request body is not valid UTF-8', { field: 'body' });
  return bytes.toString('utf8');
}

function tooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes`, { limit });
}

/**
 * How deep arrays and objects may nest in a JSON body. Real inputs stay far below it (a manifest's
 * step parameters are a few levels down). Deeper values parse fine but fail later, as a 500: the
 * database client refuses JSON nested past about 128 levels, and at some thousands of levels
 * whatever walks the value recursively overflows the stack.
 */
const MAX_JSON_DEPTH = 100;

/** Whether JSON text nests deeper than `limit`, found in one pass without parsing it. */
function jsonNestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

/** Refuses (400) JSON text nested deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(text: string, what = 'the request body'): void {
  if (jsonNestsDeeperThan(text)) {
    throw new AppError('VALIDATION_ERROR', `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`, {
      maxDepth: MAX_JSON_DEPTH,
    });
  }
}

/** The JSON object body of a REST request; an empty body reads as {}. */
export async function readJsonObject(request: Incoming, limit: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, limit);
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be JSON (Content-Type: application/json)', { contentType: type });
  }
  assertJsonDepth(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION_ERROR', `the request body is not valid JSON: ${(error as Error).message}`, { field: 'body' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `the request body must be a JSON object, not ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`,
      { field: 'body' },
    );
  }
  return parsed as Record<string, unknown>;
}
