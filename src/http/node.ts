import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ConnectionInfo } from '../app.js';
import { errorBody } from '../rest/envelope.js';
import { textOf } from './text-response.js';

/**
 * Serves a fetch-style handler (Request in, Response out) on node:http: the request becomes a
 * Fetch API Request, the Response is written back, text made by textResponse in one call and any
 * other body (GraphQL's, the MCP SDK's) streamed with back-pressure.
 */

type FetchHandler = (request: Request, connection: ConnectionInfo) => Promise<Response>;

const WITHOUT_BODY = new Set(['GET', 'HEAD']);

/**
 * The request body as a web stream that only pauses the socket when the service stops reading
 * it (a body over the size limit). Node's own conversion destroys the socket on cancel, which
 * would cut off the 413 answer; here the answer is written and the connection then closed.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once('end', () => {
        if (open) controller.close();
        open = false;
      });
      req.once('error', (error) => {
        if (open) controller.error(error);
        open = false;
      });
      req.once('close', () => {
        // Closed before the end: the client went away mid-body.
        if (open && !req.complete) controller.error(new Error('the client closed the connection before the body was complete'));
        open = false;
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      req.pause();
    },
  });
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  if (WITHOUT_BODY.has(method)) return new Request(url, { method, headers });
  return new Request(url, { method, headers, body: bodyStream(req), duplex: 'half' } as RequestInit);
}

function headersOf(response: Response): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  return out;
}

async function send(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  // A body the service did not read to the end (too large, or not needed) is not drained: the
  // connection closes after the answer instead.
  if (!req.complete) res.setHeader('connection', 'close');
  res.writeHead(response.status, response.statusText || undefined, headersOf(response));
  const text = textOf(response);
  if (text !== undefined || !response.body) {
    res.end(text);
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A client that stops reading holds the stream back instead of filling memory.
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
      if (res.destroyed) break;
    }
  } finally {
    reader.cancel().catch(() => {});
    res.end();
  }
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** The node:http request listener for `handler`. */
export function nodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let request: Request;
    try {
      request = toRequest(req);
    } catch {
      // A request line or header node:http accepted but the Fetch API refuses.
      res.writeHead(400, JSON_TYPE);
      res.end(errorBody('VALIDATION_ERROR', 'the request line or a header is not valid'));
      return;
    }
    handler(request, { remoteAddress: req.socket.remoteAddress })
      .then((response) => send(req, res, response))
      .catch(() => {
        // The handler answers every error itself; this is a failure while sending.
        if (!res.headersSent) {
          res.writeHead(500, JSON_TYPE);
          res.end(errorBody('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged'));
        } else {
          res.destroy();
        }
      });
  };
}

/** A node:http server for `handler` (not listening yet). */
export function createNodeServer(handler: FetchHandler): Server {
  return createServer(nodeListener(handler));
}
