import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ConnectionInfo } from '../app.js';
import { errorBody } from '../rest/envelope.js';
import { decodeBody } from './body.js';
import type { Incoming, RequestHeaders } from './incoming.js';
import { TextReply, type Reply } from './text-response.js';

/**
 * Serves the service's handler on node:http: the request is passed as a thin view of Node's
 * request (no Fetch API Request is built unless a library asks for one), a TextReply is written
 * in one call, and a Response's body (GraphQL's, the MCP SDK's) is streamed with back-pressure.
 */

type Handler = (request: Incoming, connection: ConnectionInfo) => Promise<Reply>;

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

/**
 * The request body's text, read from Node's request directly: a web stream and its reader cost
 * more than the rest of reading a small JSON body. Null once the body passes `limit` bytes: the
 * request is then paused, and the connection closes after the answer (closesAfter).
 */
function bodyText(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      try {
        resolve(decodeBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error);
      }
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      // Closed before the end: the client went away mid-body.
      if (req.complete) return;
      done();
      reject(new Error('the client closed the connection before the body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Node's parsed headers behind the Fetch API's get/has. Node keeps the first of repeated
 * singleton headers (Authorization, Content-Type, Host…) and joins the others with ", " as the
 * Fetch API does.
 */
class NodeHeaders implements RequestHeaders {
  constructor(private readonly req: IncomingMessage) {}

  get(name: string): string | null {
    const value = this.req.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  has(name: string): boolean {
    return this.req.headers[name.toLowerCase()] !== undefined;
  }

  *entries(): Iterable<[string, string]> {
    const all = this.req.headers;
    for (const name in all) {
      const value = all[name];
      if (value !== undefined) yield [name, typeof value === 'string' ? value : value.join(', ')];
    }
  }
}

class NodeIncoming implements Incoming {
  readonly method: string;
  readonly headers: NodeHeaders;
  private stream: ReadableStream<Uint8Array> | null | undefined;
  private textRead = false;

  constructor(
    /** The HTTP server's request, as a handler written for node:http takes it (heldNodeRequest). */
    readonly req: IncomingMessage,
    readonly url: string,
  ) {
    this.method = req.method ?? 'GET';
    this.headers = new NodeHeaders(req);
  }

  /** Made on first use: most requests have no body or never read it as a stream. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.textRead) throw new Error('the request body was already read as text');
    if (this.stream === undefined) this.stream = WITHOUT_BODY.has(this.method) ? null : bodyStream(this.req);
    return this.stream;
  }

  readText(limit: number): Promise<string | null> {
    if (WITHOUT_BODY.has(this.method)) return Promise.resolve('');
    if (this.stream !== undefined || this.textRead) return Promise.reject(new Error('the request body was already read'));
    this.textRead = true;
    return bodyText(this.req, limit);
  }

  /** The HTTP server's request, while its body is unread (src/http/node-exchange.ts, heldNodeRequest). */
  get heldRequest(): IncomingMessage | null {
    return this.bodyRead ? null : this.req;
  }

  /** Whether the service started reading the body. */
  get bodyRead(): boolean {
    return this.stream != null || this.textRead;
  }
}

/**
 * Largest unread body left to Node to drain after the answer, so the connection stays open for
 * the next request (a small request refused before its body was read: 401, 404, 429…).
 */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Whether the connection must close after the answer: the body is still arriving and either the
 * service stopped reading it part-way (over the size limit) or it is too large, or of unknown
 * length, to be drained. Draining is what Node does with a body nobody read.
 */
function closesAfter(req: IncomingMessage, request: NodeIncoming): boolean {
  if (req.complete) return false;
  if (request.bodyRead) return true;
  const declared = Number(req.headers['content-length']);
  return !(Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES);
}

function toIncoming(req: IncomingMessage): NodeIncoming | null {
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  return URL.canParse(url) ? new NodeIncoming(req, url) : null;
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

/**
 * Longest answer text (in UTF-16 code units) written as text rather than as bytes encoded first:
 * a short text costs the server less CPU as text, a long one as bytes (docs/decisions.md,
 * "Performance").
 */
const TEXT_WRITE_LIMIT = 64 * 1024;

async function send(req: IncomingMessage, res: ServerResponse, request: NodeIncoming, response: Reply, state: ServerState): Promise<void> {
  // Draining (SIGTERM): every answer closes its connection, so none stays open after its request.
  if (state.draining || closesAfter(req, request)) res.setHeader('connection', 'close');
  if (response instanceof TextReply) {
    if (response.status === 204 || response.status === 304) {
      res.writeHead(response.status, response.headers);
      res.end();
      return;
    }
    // With its length declared the answer leaves in one write; without, Node frames it in chunks.
    // The length goes in with the other headers: set apart (setHeader), it would send writeHead
    // down its slower path, which sets and checks every header one by one. A text up to
    // TEXT_WRITE_LIMIT is ended as text, which Node joins to the head and writes in one call; a
    // larger one (a big tool list) is encoded once here, since joining it to the head copies the
    // whole answer. (docs/decisions.md, "Performance")
    const { text } = response;
    if (text.length <= TEXT_WRITE_LIMIT) {
      res.writeHead(response.status, { ...response.headers, 'content-length': String(Buffer.byteLength(text, 'utf8')) });
      res.end(text, 'utf8');
      return;
    }
    const body = Buffer.from(text, 'utf8');
    res.writeHead(response.status, { ...response.headers, 'content-length': String(body.length) });
    res.end(body);
    return;
  }
  res.writeHead(response.status, response.statusText || undefined, headersOf(response));
  if (!response.body) {
    res.end();
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

interface ServerState {
  draining: boolean;
}

const states = new WeakMap<Server, ServerState>();

/** The node:http request listener for `handler`. */
function nodeListener(handler: Handler, state: ServerState): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const request = toIncoming(req);
    if (!request) {
      // A request line or Host header node:http accepted that makes no URL.
      res.writeHead(400, JSON_TYPE);
      res.end(errorBody('VALIDATION_ERROR', 'the request line or a header is not valid'));
      return;
    }
    handler(request, { remoteAddress: req.socket.remoteAddress })
      .then((response) => send(req, res, request, response, state))
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
export function createNodeServer(handler: Handler): Server {
  const state: ServerState = { draining: false };
  const server = createServer(nodeListener(handler, state));
  states.set(server, state);
  return server;
}

/**
 * Starts a graceful stop of a server made by createNodeServer: it stops listening, closes the
 * keep-alive connections that are idle, and answers every request still to come on an open
 * connection with `Connection: close`, so each connection closes after its answer. Resolves when
 * the last connection has closed (the caller bounds the wait and cuts what is left).
 */
export function drainNodeServer(server: Server): Promise<void> {
  const state = states.get(server);
  if (state) state.draining = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
