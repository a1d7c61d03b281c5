import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { createNodeServer } from '../../src/http/node.js';
import type { TestApp } from '../helpers/app.js';
import { initializeRequest, MCP_ACCEPT } from '../helpers/mcp.js';
import { serviceTest } from '../helpers/service-test.js';
import { sampleManifest } from '../helpers/workflows.js';

/** Not UTF-8: a lead byte followed by "(", then two bytes that never occur in UTF-8. */
const INVALID = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);

/** `before`, the invalid bytes, then `after`, as one body. */
function bytesWith(before: string, after: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(Buffer.concat([Buffer.from(before), INVALID, Buffer.from(after)]));
}

/** The service behind a node:http server on a loopback port, its user, and a deployment of one valid workflow. */
const test = serviceTest.extend<{ world: { token: string; socketOrigin: string; deploymentId: string } }>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('bytes@example.com');
      const server: Server = createNodeServer((request, connection) => t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const socketOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const workflow = await t.call('POST', '/v1/workflows', { token, body: { name: 'Valid', manifest: sampleManifest() } });
        const deployment = await t.call('POST', '/v1/deployments', {
          token,
          body: { name: 'Bytes', workflowIds: [workflow.body.data.workflowId] },
        });
        expect(deployment.status, deployment.text).toBe(201);
        await use({ token, socketOrigin, deploymentId: deployment.body.data.deploymentId });
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    { scope: 'file' },
  ],
});

/**
 * Finding 8 of the fault-injection review: a body whose bytes are not UTF-8 was decoded with
 * replacement characters and stored altered. Every face refuses it with 400 VALIDATION_ERROR, read
 * from a socket (src/http/node.ts) or from a Fetch API Request (src/http/body.ts).
 */
describe('a request body that is not UTF-8', () => {
  /** Sends the same bytes through the socket and in process; both answers are returned. */
  async function send(
    t: TestApp,
    socketOrigin: string,
    path: string,
    body: Uint8Array<ArrayBuffer>,
    headers: Record<string, string>,
  ): Promise<Response[]> {
    const overSocket = await fetch(`${socketOrigin}${path}`, { method: 'POST', headers, body });
    const inProcess = await t.app.fetch(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers, body }));
    return [overSocket, inProcess];
  }

  async function workflowNames(t: TestApp, token: string): Promise<string[]> {
    const list = await t.call('GET', '/v1/workflows?limit=100', { token });
    return list.body.data.map((w: { name: string }) => w.name);
  }

  test('is refused by REST with 400 VALIDATION_ERROR, and nothing is stored', async ({ service: t, world: { token, socketOrigin } }) => {
    const body = bytesWith('{"name":"Bad ', `","manifest":${JSON.stringify(sampleManifest())}}`);
    for (const res of await send(t, socketOrigin, '/v1/workflows', body, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    })) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: 'the request body is not valid UTF-8' },
      });
    }
    expect(await workflowNames(t, token)).toEqual(['Valid']);
  });

  test('is refused by GraphQL with 400 VALIDATION_ERROR, and nothing is stored', async ({ service: t, world: { token, socketOrigin } }) => {
    const query = 'mutation ($m: JSON!) { createWorkflow(name: "Bad NAME", manifest: $m) { workflowId } }';
    const [head, tail] = JSON.stringify({ query, variables: { m: sampleManifest() } }).split('NAME');
    for (const res of await send(t, socketOrigin, '/graphql', bytesWith(head!, tail!), {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    })) {
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { errors?: Array<{ message: string; extensions: { code: string } }> };
      expect(answer.errors?.[0]).toMatchObject({
        message: 'the request body is not valid UTF-8',
        extensions: { code: 'VALIDATION_ERROR' },
      });
    }
    expect(await workflowNames(t, token)).toEqual(['Valid']);
  });

  test('is refused by the tool endpoint with 400 VALIDATION_ERROR', async ({
    service: t,
    world: { token, socketOrigin, deploymentId },
  }) => {
    const request = initializeRequest({ clientName: 'NAME' });
    const [head, tail] = JSON.stringify(request).split('NAME');
    for (const res of await send(t, socketOrigin, `/v1/mcp/${deploymentId}`, bytesWith(head!, tail!), {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...MCP_ACCEPT,
    })) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('the request body is not valid UTF-8');
    }
  });

  test('is refused by the OAuth forms and registration with 400 VALIDATION_ERROR', async ({ service: t, world: { socketOrigin } }) => {
    const token = await send(t, socketOrigin, '/oauth/token', bytesWith('grant_type=authorization_code&code=', ''), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    const registration = await send(
      t,
      socketOrigin,
      '/oauth/register',
      bytesWith('{"client_name":"', '","redirect_uris":["http://127.0.0.1/cb"]}'),
      {
        'content-type': 'application/json',
      },
    );
    for (const res of [...token, ...registration]) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('the request body is not valid UTF-8');
    }
    // The sign-in form reads the body after its same-origin check, so it is sent from its own origin.
    const signIn = await t.app.fetch(
      new Request('http://127.0.0.1/sign-in/dev', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1', 'sec-fetch-site': 'same-origin' },
        body: bytesWith('email=a', '%40example.com&return=%2F'),
      }),
    );
    expect(signIn.status).toBe(400);
    expect(await signIn.text()).toContain('not valid UTF-8');
  });

  test('still reads valid UTF-8 of every length', async ({ service: t, world: { token, socketOrigin } }) => {
    const name = 'Über ✓ 漢字';
    const res = await fetch(`${socketOrigin}/v1/workflows`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, manifest: sampleManifest() }),
    });
    expect(res.status).toBe(201);
    expect(await workflowNames(t, token)).toContain(name);
  });
});
