import { AppError } from '../errors.js';

/**
 * A request as the service reads it: the part of the Fetch API `Request` it uses. A `Request`
 * is one (tests and `App.fetch` pass them); the HTTP server (src/http/node.ts) passes a thin view
 * of Node's request instead, since building a `Request` costs a measurable share of the hottest
 * routes. Code that hands the request to a library wanting a real one (GraphQL Yoga, the MCP SDK)
 * converts it with `toFetchRequest`.
 */
export interface RequestHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
  entries(): Iterable<[string, string]>;
}

export interface Incoming {
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  readonly headers: RequestHeaders;
  /** The body as a stream, or null for none (GET, HEAD). */
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * The body's text, read without a stream, or null once it passes `limit` bytes (reading then
   * stops). Offered by the HTTP server's requests; `readBodyText` reads `body` where it is absent.
   */
  readText?(limit: number): Promise<string | null>;
}

const invalid = () => new AppError('VALIDATION_ERROR', 'the request line or a header is not valid');

/**
 * The Fetch API classes a request is built with: the platform's, or a library's own (GraphQL Yoga's
 * `fetchAPI`, whose Request keeps a text body as text and so is far cheaper to build and read as
 * JSON than the platform's, which wraps it in a web stream).
 */
export interface FetchApi {
  Request: typeof Request;
  Headers: typeof Headers;
}

const PLATFORM: FetchApi = { Request, Headers };

/** The request's headers as Fetch API Headers (a copy). */
export function fetchHeadersOf(request: Incoming, api: FetchApi = PLATFORM): Headers {
  try {
    return new api.Headers([...request.headers.entries()]);
  } catch {
    // A header Node's parser accepted but the Fetch API refuses.
    throw invalid();
  }
}

/** The request as a Fetch API Request (itself if it is one), with `body` instead of its own if given. */
export function toFetchRequest(request: Incoming, body?: string, api: FetchApi = PLATFORM): Request {
  if (request instanceof Request && body === undefined) return request;
  const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: fetchHeadersOf(request, api) };
  if (body !== undefined) {
    init.body = body;
  } else if (request.body) {
    init.body = request.body;
    init.duplex = 'half';
  }
  try {
    return new api.Request(request.url, init);
  } catch {
    throw invalid();
  }
}
