import { request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { createNodeServer } from '../../src/http/node.js';
import { serviceTest } from '../helpers/service-test.js';
import { sampleManifest } from '../helpers/workflows.js';
import { initializeRequest } from '../helpers/mcp.js';

/** The service behind a node:http server on a loopback port, and the Authorization header of its user. */
const test = serviceTest.extend<{ server: Server; origin: string; auth: () => Record<string, string> }>({
  server: [
    async ({ service: t }, use) => {
      const server = createNodeServer((request, connection) => t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      await use(server);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    { scope: 'file' },
  ],
  origin: [async ({ server }, use) => use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), { scope: 'file' }],
  auth: [
    async ({ service: t }, use) => {
      const token = await t.token('socket@example.com');
      await use(() => ({ authorization: `Bearer ${token}` }));
    },
    { scope: 'file' },
  ],
});

/**
 * The node:http server of src/main.ts over a real loopback socket: requests reach the service with
 * their headers and bodies (as a view of Node's request, or as a Fetch API Request where a library
 * needs one), and every kind of answer (the envelope's text, GraphQL's streamed body, the MCP SDK's
 * answer, errors, an empty 204) comes back whole with its status and headers.
 */
describe('the HTTP server', () => {
  test('answers a GET in the envelope with the request id and rate-limit headers', async ({ origin, auth }) => {
    const res = await fetch(`${origin}/v1/users/me`, { headers: { ...auth(), 'x-request-id': 'socket-test-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toBe('socket-test-1');
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ success: true, data: { email: 'socket@example.com' } });
  });

  test('passes a JSON body through and answers 201 with the stored workflow', async ({ origin, auth }) => {
    const body = { name: 'Über den Socket ✓', manifest: sampleManifest(), tags: ['ünïcode'] };
    const res = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    // The envelope goes out with its length in bytes (not chunked), non-ASCII names included.
    const text = await res.clone().text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const created = (await res.json()) as { data: { workflowId: string; name: string; tags: string[] } };
    expect(created.data).toMatchObject({ name: body.name, tags: body.tags });
    const again = await fetch(`${origin}/v1/workflows/${created.data.workflowId}`, { headers: auth() });
    expect(((await again.json()) as { data: { name: string } }).data.name).toBe(body.name);
  });

  test('answers a large text whole, with its length in bytes (written as bytes rather than as text)', async ({ origin, auth }) => {
    // 70,000 characters of two bytes each: past the size from which the answer is encoded before it is written.
    const note = 'ü'.repeat(70_000);
    const manifest = sampleManifest();
    manifest.steps[0].parameters = { note };
    const created = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Large', manifest }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { workflowId: string } };
    const res = await fetch(`${origin}/v1/workflows/${data.workflowId}`, { headers: auth() });
    const text = await res.clone().text();
    expect(text.length).toBeGreaterThan(70_000);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    const read = (await res.json()) as { data: { manifest: { steps: { parameters?: { note?: string } }[] } } };
    expect(read.data.manifest.steps[0]!.parameters?.note).toBe(note);
  });

  test('streams a GraphQL answer whole', async ({ origin, auth }) => {
    const query = `{ me { email } workflows(limit: 5) { data { name } } }`;
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = (await res.json()) as { data: { me: { email: string }; workflows: { data: unknown[] } } };
    expect(body.data.me.email).toBe('socket@example.com');
    expect(body.data.workflows.data.length).toBeGreaterThan(0);
  });

  test('answers errors in the envelope: 401, 404, 405 with Allow, unparsable JSON and too large a body', async ({
    service: t,
    origin,
    auth,
  }) => {
    const unauthorized = await fetch(`${origin}/v1/users/me`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await unauthorized.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const missing = await fetch(`${origin}/v1/nothing-here`, { headers: auth() });
    expect(missing.status).toBe(404);
    const wrongMethod = await fetch(`${origin}/v1/users/me`, { method: 'PATCH', headers: auth() });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    const bad = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false });
    const huge = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: `{"name":"${'x'.repeat(t.config.bodyLimitBytes)}"}`,
    });
    expect(huge.status).toBe(413);
    // Not drained: a body over the limit closes the connection after the answer.
    expect(huge.headers.get('connection')).toBe('close');
  });

  test('answers HEAD without a body and keeps the connection usable', async ({ origin }) => {
    const status = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const req = httpRequest(`${origin}/healthz`, { method: 'HEAD' }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status.bytes).toBe(0);
    const after = await fetch(`${origin}/healthz`);
    expect(after.status).toBe(200);
  });

  test('answers a CORS preflight of the tool endpoint with an empty 204', async ({ origin }) => {
    const res = await fetch(`${origin}/v1/mcp/any-deployment`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.text()).toBe('');
  });

  test('answers a tool endpoint request sent by a client that is not a browser (the SDK gets a Fetch API Request)', async ({
    origin,
    auth,
  }) => {
    const json = { ...auth(), 'content-type': 'application/json' };
    const wf = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Over a socket', manifest: sampleManifest() }),
    });
    const workflowId = ((await wf.json()) as { data: { workflowId: string } }).data.workflowId;
    const dep = await fetch(`${origin}/v1/deployments`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Socket', workflowIds: [workflowId] }),
    });
    expect(dep.status).toBe(201);
    const id = ((await dep.json()) as { data: { deploymentId: string } }).data.deploymentId;
    const init = initializeRequest({ clientName: 'socket', protocolVersion: '2025-11-25', id: 7 });
    // Content-Type with a charset and a bare Accept: the endpoint passes the SDK a corrected copy.
    const res = await fetch(`${origin}/v1/mcp/${id}`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json; charset=utf-8', accept: '*/*' },
      body: JSON.stringify(init),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^mcp1\./);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(await res.clone().text())));
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 7, result: { protocolVersion: '2025-11-25' } });
  });

  /** POSTs `parts` as a chunked body (no declared length), one write each, a moment apart. */
  const postChunked = (origin: string, auth: () => Record<string, string>, path: string, parts: Buffer[]) =>
    new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest(`${origin}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // The server may close the connection once it has answered, while parts are still being sent.
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      let i = 0;
      const next = () => {
        if (i === parts.length) return void req.end();
        req.write(parts[i++]);
        setTimeout(next, 5);
      };
      next();
    });

  test('reads a body that arrives in parts, a character split between two of them', async ({ origin, auth }) => {
    const text = Buffer.from(JSON.stringify({ name: 'Café in parts', manifest: sampleManifest() }), 'utf8');
    const at = text.indexOf('é') + 1; // between the two bytes of é
    const res = await postChunked(origin, auth, '/v1/workflows', [text.subarray(0, 10), text.subarray(10, at), text.subarray(at)]);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ success: true, data: { name: 'Café in parts' } });
  });

  test('refuses a body of undeclared length once it passes the limit, and closes the connection after the answer', async ({
    service: t,
    origin,
    auth,
  }) => {
    const part = Buffer.from(`{"name":"${'x'.repeat(Math.ceil(t.config.bodyLimitBytes / 2))}`, 'utf8');
    const res = await postChunked(origin, auth, '/v1/workflows', [part, part, part, Buffer.from('"}')]);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(res.connection).toBe('close');
    // The server is still serving.
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  });

  test('keeps the connection open after refusing a small body it never read, and reads the next request after it', async ({
    server,
    origin,
  }) => {
    const res = await fetch(`${origin}/v1/workflows`, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('connection')).not.toBe('close');
    await res.text();

    // On one socket: the refused request's body arrives after its answer, then a second request.
    const port = (server.address() as AddressInfo).port;
    const body = JSON.stringify({ name: 'GET /healthz HTTP/1.1' });
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let sent = false;
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        // The first answer has arrived: now the body, then the next request.
        if (!sent && text.includes('\r\n\r\n')) {
          sent = true;
          socket.end(`${body}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
        }
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `POST /v1/workflows HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer not-a-token\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      );
    });
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    expect(statuses).toEqual(['401', '200']);
    expect(raw).toContain('"status":"ok"');
  });

  test('refuses a Host header that makes no URL with 400 in the envelope', async ({ server }) => {
    const port = (server.address() as AddressInfo).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('GET /healthz HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('"success":false,"error":{"code":"VALIDATION_ERROR"');
  });

  test('serves many requests on one keep-alive connection in parallel without mixing answers', async ({ origin, auth }) => {
    const ids = Array.from({ length: 40 }, (_, i) => `parallel-${i}`);
    const answers = await Promise.all(ids.map((id) => fetch(`${origin}/v1/users/me`, { headers: { ...auth(), 'x-request-id': id } })));
    expect(answers.map((a) => a.headers.get('x-request-id'))).toEqual(ids);
    for (const a of answers) expect(((await a.json()) as { success: boolean }).success).toBe(true);
  });
});
