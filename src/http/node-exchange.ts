import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * node:http's own request and response classes for a handler written for node:http (the
 * authorization server's library): a request made from parts where the HTTP server's request
 * cannot be handed over (the Fetch handler, or a body the service has read already), and a
 * response that keeps the answer for the pipeline instead of writing it to a socket, since the
 * request id, the rate-limit headers, the charge after work and the metrics are added to an answer
 * before it is sent (src/edge/pipeline.ts).
 */

/**
 * The node:http request the HTTP server holds for `request`, while its body is unread (a handler
 * written for node:http reads it itself); null for a request that did not come over node:http.
 */
export function heldNodeRequest(request: object): IncomingMessage | null {
  return (request as { heldRequest?: IncomingMessage | null }).heldRequest ?? null;
}

export interface NodeRequestParts {
  method: string;
  /** The path and query string. */
  path: string;
  headers: Record<string, string>;
  /** The body's text; none for a request without one. */
  body?: string;
}

/** A node:http request of `parts`, its body already in its buffer, on a socket that never connects. */
export function nodeRequestFrom(parts: NodeRequestParts): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = parts.method;
  req.url = parts.path;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: Record<string, string> = { ...parts.headers };
  delete headers['transfer-encoding'];
  if (parts.body !== undefined) {
    const bytes = Buffer.from(parts.body, 'utf8');
    headers['content-length'] = String(bytes.length);
    if (bytes.length) req.push(bytes);
  } else {
    delete headers['content-length'];
  }
  req.headers = headers;
  req.push(null);
  req.complete = true;
  return req;
}

type Chunk = string | Uint8Array;
type Callback = (error?: Error | null) => void;

function bytesOf(chunk: Chunk, encoding: unknown): Buffer {
  return typeof chunk === 'string'
    ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
    : Buffer.from(chunk);
}

function answerOf(res: ServerResponse, method: string | undefined, chunks: Buffer[]): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'connection') continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, String(value));
  }
  const status = res.statusCode;
  const empty = status === 204 || status === 304 || method === 'HEAD';
  return new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage || undefined, headers });
}

type HeadHeaders = Record<string, number | string | string[] | undefined> | (string | string[])[];

/** Headers given to writeHead, kept with those set before (node:http writes them past its own list otherwise). */
function keepHeaders(res: ServerResponse, headers: HeadHeaders): void {
  if (!Array.isArray(headers)) {
    for (const name in headers) if (headers[name] !== undefined) res.setHeader(name, headers[name]);
    return;
  }
  const pairs = Array.isArray(headers[0]) ? (headers as string[][]) : [];
  if (!pairs.length) for (let i = 0; i + 1 < headers.length; i += 2) pairs.push([String(headers[i]), String(headers[i + 1])]);
  for (const [name, value] of pairs) if (name !== undefined && value !== undefined) res.appendHeader(name, value);
}

/**
 * A node:http response to `req` whose answer (status, headers, body) is kept: `answer` resolves
 * with it as a Fetch API Response when the handler ends it.
 */
export function capturedResponse(req: IncomingMessage): { res: ServerResponse; answer: Promise<Response> } {
  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  let settle!: (answer: Response) => void;
  const answer = new Promise<Response>((resolve) => (settle = resolve));
  const write = (chunk: Chunk, encoding?: unknown, callback?: unknown): boolean => {
    if (!res.headersSent) res.writeHead(res.statusCode);
    chunks.push(bytesOf(chunk, encoding));
    const done = (typeof encoding === 'function' ? encoding : callback) as Callback | undefined;
    if (done) process.nextTick(done);
    return true;
  };
  const end = (chunk?: unknown, encoding?: unknown, callback?: unknown): ServerResponse => {
    const done = [chunk, encoding, callback].find((a) => typeof a === 'function') as Callback | undefined;
    if (res.writableEnded) return res;
    if (!res.headersSent) res.writeHead(res.statusCode);
    if (chunk != null && typeof chunk !== 'function') chunks.push(bytesOf(chunk as Chunk, encoding));
    (res as { finished: boolean }).finished = true;
    settle(answerOf(res, req.method, chunks));
    process.nextTick(() => {
      res.emit('finish');
      res.emit('close');
      done?.();
    });
    return res;
  };
  const writeHead = res.writeHead.bind(res);
  const head = (status: number, reason?: unknown, headers?: unknown): ServerResponse => {
    const given = (typeof reason === 'string' ? headers : reason) as HeadHeaders | undefined;
    if (given) keepHeaders(res, given);
    return typeof reason === 'string' ? writeHead(status, reason) : writeHead(status);
  };
  res.writeHead = head as ServerResponse['writeHead'];
  res.write = write as ServerResponse['write'];
  res.end = end as ServerResponse['end'];
  return { res, answer };
}
