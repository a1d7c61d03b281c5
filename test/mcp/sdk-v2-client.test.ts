import { describe, expect } from 'vitest';
import { startTestApp } from '../helpers/app.js';
import {
  CLIENT_ADAPTERS,
  connectClient,
  expectBothWorkflowsOffered,
  expectToolsOfAdapter,
  expectUnknownNamesRefused,
  MODERN,
  seedSdkClientSuite,
  type SdkClientSuite,
} from '../helpers/mcp.js';
import { serviceTest } from '../helpers/service-test.js';

const test = serviceTest.extend<{ suite: SdkClientSuite }>({
  suite: [async ({ service }, use) => use(await seedSdkClientSuite(service)), { scope: 'file' }],
});

/**
 * The official v2 SDK client pinned to revision 2026-07-28 (sessionless: no initialize, `_meta`
 * on every request) against deployments, one client per adapter, and the same client in its
 * 2025 mode (initialize) against the same URL.
 */
describe('MCP 2026-07-28 with the official v2 SDK client', () => {
  for (const era of [MODERN, null] as const) {
    const label = era ?? '2025-11-25 (initialize)';
    for (const { client: clientName, adapter, toolsPerWorkflow } of CLIENT_ADAPTERS) {
      test(`${label}: ${clientName} gets ${adapter}: tools, prompts and resources`, async ({
        service: t,
        suite: { deploymentId, token, owned, subscribed },
      }) => {
        const seen: Request[] = [];
        const client = await connectClient(t.app, deploymentId, clientName, { token, pin: era, seen });
        try {
          expect(client.getNegotiatedProtocolVersion()).toBe(era ?? '2025-11-25');
          expect(client.getServerVersion()).toMatchObject({
            name: 'workflow-service',
            title: 'Everything',
            icons: [{ src: expect.stringMatching(/^data:image\/svg\+xml;base64,/), mimeType: 'image/svg+xml', sizes: ['any'] }],
          });
          expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
          expect(client.getInstructions()).toContain('Everything');
          // 2026-07-28 has no ping; 2025 clients (and spec 4.3's bare curl) keep it.
          if (!era) await client.ping();

          await expectBothWorkflowsOffered(client, { owned, subscribed, adapter, toolsPerWorkflow });
          const { tools } = await client.listTools();
          const main = tools.find((x) => x.name.startsWith('feature_pipeline_') && !x.name.includes('__'))!;
          expect(main.title).toEqual(expect.any(String));
          expect(main.annotations).toMatchObject({ readOnlyHint: true });

          const bodies = await Promise.all(
            seen
              .filter((r) => r.method === 'POST')
              .map(async (r) => ({ headers: r.headers, body: (await r.json()) as { method?: string } })),
          );
          if (era) {
            // Sessionless: no initialize and no session id on the wire, the revision on every request.
            expect(bodies.map((b) => b.body.method)).not.toContain('initialize');
            for (const b of bodies) {
              expect(b.headers.get('mcp-session-id')).toBeNull();
              expect(b.headers.get('mcp-protocol-version')).toBe(MODERN);
            }
          } else {
            expect(bodies[0]!.body.method).toBe('initialize');
          }
        } finally {
          await client.close();
        }
      });
    }
  }

  test('takes the adapter from the URL over the client information in _meta', async ({ service: t, suite }) => {
    const client = await connectClient(t.app, suite.deploymentId, 'claude-code', { token: suite.token, query: '?adapter=adapter_two' });
    try {
      await expectToolsOfAdapter(client, { adapter: 'adapter_two', tools: 2 });
    } finally {
      await client.close();
    }
  });

  test('surfaces JSON-RPC errors as SDK errors', async ({ service: t, suite }) => {
    const client = await connectClient(t.app, suite.deploymentId, 'claude-code', { token: suite.token });
    try {
      await expectUnknownNamesRefused(client);
      await expect(client.readResource({ uri: 'workflow://nope/manifest' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Resource not found'),
      });
    } finally {
      await client.close();
    }
  });

  test('refuses a private deployment without a token', async ({ service: t, suite }) => {
    await expect(
      (async () => {
        const client = await connectClient(t.app, suite.deploymentId, 'claude-code');
        await client.listTools();
      })(),
    ).rejects.toThrow(/401|private|Unauthorized/i);
  });

  test('serves an anonymous deployment, alternating between two instances', async ({ service: t, suite }) => {
    const second = await startTestApp({ database: t.database });
    try {
      const seen: Request[] = [];
      const client = await connectClient([t.app, second.app], suite.anonymousId, 'Cursor', { seen });
      await expectToolsOfAdapter(client, { adapter: 'adapter_two', tools: 1, times: 3 });
      expect(seen.length).toBeGreaterThanOrEqual(6);
      await client.close();
    } finally {
      await second.close();
    }
  });
});
