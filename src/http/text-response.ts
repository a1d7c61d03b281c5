/**
 * What the service answers: a Fetch API `Response` (GraphQL Yoga's and the MCP SDK's answers), or
 * a `TextReply`, the plain status, headers and text of an answer the service has just made (every
 * REST answer, every error). A `Response` costs more to build than the JSON it carries on the
 * hottest routes (docs/decisions.md, "Performance"), so the HTTP server (src/http/node.ts) writes a
 * `TextReply` in one call and only `App.fetch` turns it into a `Response`, for callers that want one.
 */
export class TextReply {
  /** Header names in lower case. */
  readonly headers: Record<string, string>;

  constructor(
    readonly text: string,
    readonly status: number,
    headers: Record<string, string> = {},
  ) {
    this.headers = {};
    for (const name in headers) this.headers[name.toLowerCase()] = headers[name]!;
  }
}

export type Reply = Response | TextReply;

/** A reply whose body is `body`, with `init`'s status (default 200) and headers. */
export function textResponse(body: string, init: { status?: number; headers?: Record<string, string> } = {}): TextReply {
  return new TextReply(body, init.status ?? 200, init.headers);
}

/** Sets a header on either kind of reply (a Response with immutable headers is the caller's to copy). */
export function setReplyHeader(reply: Reply, name: string, value: string): void {
  if (reply instanceof TextReply) reply.headers[name.toLowerCase()] = value;
  else reply.headers.set(name, value);
}

/** Drops a reply's body unread (a Response's stream is cancelled). */
export async function discardReply(reply: Reply): Promise<void> {
  if (!(reply instanceof TextReply)) await reply.body?.cancel().catch(() => {});
}

/** The reply as a Fetch API Response. */
export function toFetchResponse(reply: Reply): Response {
  if (!(reply instanceof TextReply)) return reply;
  // 204 and 304 carry no body, not even an empty one.
  const body = reply.status === 204 || reply.status === 304 ? null : reply.text;
  return new Response(body, { status: reply.status, headers: reply.headers });
}
