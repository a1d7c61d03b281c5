import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * The only way out for the agent CLIs in the tests, named in their HTTPS_PROXY and HTTP_PROXY: an
 * HTTP proxy (CONNECT tunnels and absolute-form requests) that sends the test's made-up host names
 * (e.g. workflows.test) to the addresses given, passes loopback addresses through and refuses
 * everything else with 403. What it refused is kept, so a test can say what a CLI tried to reach.
 */

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY. */
  url: string;
  /** `host:port` of every destination refused, in order. */
  refused: string[];
  /** `host:port` of every destination let through (loopback or a mapped name), in order. */
  passed: string[];
  close(): Promise<void>;
}

/** Splits `host:port` (IPv6 in brackets) as a CONNECT request or a Host header writes it. */
function splitAuthority(authority: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  if (!match) return { host: '', port: 0 };
  return { host: match[1]!.toLowerCase(), port: match[2] ? Number(match[2]) : defaultPort };
}

export async function startEgressProxy(routes: Record<string, { host: string; port: number }> = {}): Promise<EgressProxy> {
  const refused: string[] = [];
  const passed: string[] = [];
  const sockets = new Set<Socket>();

  /** Where a destination is sent, or null when it is refused. */
  function destination(host: string, port: number): { host: string; port: number } | null {
    const route = routes[host];
    const to = route ?? (LOOPBACK.has(host) ? { host: host.replace(/^\[|\]$/g, ''), port } : null);
    if (to) {
      passed.push(`${host}:${port}`);
      return to;
    }
    refused.push(`${host}:${port}`);
    return null;
  }

  const server: Server = createServer((req: IncomingMessage, res) => {
    // An absolute-form request (plain http:// through the proxy).
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const to = destination(target.hostname.toLowerCase(), Number(target.port || 80));
    if (!to) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`refused by the test's proxy: ${target.host}`);
      return;
    }
    const upstream = httpRequest(
      { host: to.host, port: to.port, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('upstream unreachable')));
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const { host, port } = splitAuthority(req.url ?? '', 443);
    const to = destination(host, port);
    if (!to) {
      client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    });
    client.once('close', () => upstream.destroy());
  });

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refused,
    passed,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
