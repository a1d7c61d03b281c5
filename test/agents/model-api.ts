import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Anthropic model API, for Claude Code run as an agent offline
 * (`ANTHROPIC_BASE_URL`): it records every request's path and body, answers `POST /v1/messages`
 * with one short text turn that ends the conversation (a server-sent-event stream when asked for
 * one, else the message as JSON), and any other path with small JSON. What a skill became by the
 * time it reached the model is in the recorded bodies.
 */
export interface ModelStandIn {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request received, in order. */
  requests: { path: string; body: string }[];
  close(): Promise<void>;
}

const REPLY = 'Done.';
/** Largest request body kept (Claude Code's requests carry its whole system prompt and tools). */
const MAX_BODY = 16 * 1024 * 1024;

function message(): Record<string, unknown> {
  return {
    id: 'msg_standin',
    type: 'message',
    role: 'assistant',
    model: 'claude-standin',
    content: [{ type: 'text', text: REPLY }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  };
}

function events(): string {
  const start = { ...message(), content: [], stop_reason: null };
  const sequence: [string, Record<string, unknown>][] = [
    ['message_start', { type: 'message_start', message: start }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: REPLY } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return sequence.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

export async function startModelStandIn(): Promise<ModelStandIn> {
  const requests: { path: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://standin').pathname;
      requests.push({ path, body });
      if (req.method === 'POST' && path === '/v1/messages') {
        let stream = false;
        try {
          stream = (JSON.parse(body) as { stream?: unknown }).stream === true;
        } catch {
          // Not JSON: answered as a plain message.
        }
        if (stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).end(events());
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message()));
        }
        return;
      }
      const answer = path.endsWith('/count_tokens') ? { input_tokens: 10 } : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
