import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import { MANIFEST_LIMITS } from '../../src/manifest/limits.js';
import { LIST_PAGE } from '../../src/mcp/tool-list.js';
import { connectClient, endpointUrl, inProcessFetch, MCP_ACCEPT, MODERN } from '../helpers/mcp.js';
import { sampleManifest } from '../helpers/workflows.js';
import { serviceTest } from '../helpers/service-test.js';

/** A manifest of `count` chained steps whose adapter_three mode gives each step a tool of its own. */
function chained(name: string, count: number, context: Record<string, string> = {}): Record<string, unknown> {
  return sampleManifest({
    name,
    context,
    steps: Array.from({ length: count }, (_, i) => ({
      id: `s${i}`,
      name: `Step ${i}`,
      action: 'code_agent',
      ...(i > 0 ? { depends_on: [`s${i - 1}`] } : {}),
    })),
    adapters: { adapter_three: { mode: 'function_calling' } },
  });
}

interface Page {
  tools: Array<{ name: string }>;
  nextCursor?: string;
}

/** Every page of tools/list, asked with the cursor of the page before, as a client pages. */
async function allPages(list: (cursor?: string) => Promise<Page>): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

/** Pages bounded in tools and bytes that hold every tool the deployment offers (`expected`), each once. */
function expectBounded(pages: Page[], expected: Set<string>): void {
  expect(pages.length).toBeGreaterThanOrEqual(4);
  for (const page of pages) {
    expect(page.tools.length).toBeGreaterThan(0);
    expect(page.tools.length).toBeLessThanOrEqual(LIST_PAGE.maxItems);
    expect(Buffer.byteLength(JSON.stringify(page.tools))).toBeLessThanOrEqual(LIST_PAGE.maxBytes + 2);
  }
  const names = pages.flatMap((p) => p.tools.map((tool) => tool.name));
  expect(new Set(names).size).toBe(names.length);
  expect(new Set(names)).toEqual(expected);
}

/** A deployment of a 200-step workflow and one of heavy tools, and the names of every tool it offers. */
interface World {
  token: string;
  deploymentId: string;
  expected: Set<string>;
}

const test = serviceTest.extend<{ world: World }>({
  world: [
    async ({ service: t }, use) => {
      const token = await t.token('pages@example.com');
      const ids: string[] = [];
      // 201 small tools, and 21 tools of about 60 kB each (the context's defaults are in every tool).
      for (const [name, manifest] of [
        ['Long chain', chained('long', MANIFEST_LIMITS.maxSteps)],
        ['Heavy tools', chained('heavy', 20, { notes: 'n'.repeat(60_000) })],
      ] as const) {
        const res = await t.call('POST', '/v1/workflows', { token, body: { name, manifest } });
        expect(res.status, res.text).toBe(201);
        ids.push(res.body.data.workflowId);
      }
      const deployment = await t.call('POST', '/v1/deployments', { token, body: { name: 'Paged', workflowIds: ids } });
      expect(deployment.status, deployment.text).toBe(201);
      const deploymentId = deployment.body.data.deploymentId;
      const expected = new Set<string>();
      const client = await connectClient(t.app, deploymentId, 'generic-agent', { token });
      for (const page of await allPages((cursor) => client.listTools(cursor ? { cursor } : {}))) {
        for (const tool of page.tools) expected.add(tool.name);
      }
      await client.close();
      await use({ token, deploymentId, expected });
    },
    { scope: 'file' },
  ],
});

/**
 * Finding 7 of the fault-injection review: tools/list over workflows of thousands of steps built
 * one answer of 144 MB. A manifest now has at most 200 steps, and tools/list and prompts/list come
 * in pages bounded in tools and bytes, which the official SDK clients walk with MCP's cursors.
 */
describe('tools/list and prompts/list in pages', () => {
  test('gives the v2 SDK client every tool, which it gathers page by page with the cursors, in both eras', async ({
    service: t,
    world: { token, deploymentId, expected },
  }) => {
    expect(expected.size).toBe(MANIFEST_LIMITS.maxSteps + 1 + 21);
    for (const pin of [MODERN, null]) {
      const seen: Request[] = [];
      const client = await connectClient(t.app, deploymentId, 'generic-agent', { token, pin, seen });
      try {
        const { tools } = await client.listTools();
        expect(new Set(tools.map((tool) => tool.name))).toEqual(expected);
        expect(tools).toHaveLength(expected.size);
        const asked = await Promise.all(
          seen.filter((r) => r.method === 'POST').map(async (r) => (await r.json()) as { method?: string; params?: { cursor?: string } }),
        );
        const lists = asked.filter((m) => m.method === 'tools/list');
        expect(lists.length).toBeGreaterThanOrEqual(4);
        expect(lists[0]!.params?.cursor).toBeUndefined();
        for (const later of lists.slice(1)) expect(later.params?.cursor).toEqual(expect.any(String));
        const prompts = await client.listPrompts();
        expect(prompts.prompts).toHaveLength(2);
      } finally {
        await client.close();
      }
    }
  });

  test('gives the old v1 SDK client every tool over the same pages', async ({ service: t, world: { token, deploymentId, expected } }) => {
    const client = new V1Client({ name: 'generic-agent', version: '1.0.0' });
    await client.connect(
      new V1Transport(endpointUrl(deploymentId), {
        fetch: inProcessFetch(t.app),
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expectBounded(await allPages((cursor) => client.listTools(cursor ? { cursor } : {})), expected);
    } finally {
      await client.close();
    }
  });

  test('refuses a cursor it never gave with -32602', async ({ service: t, world: { token, deploymentId } }) => {
    const client = await connectClient(t.app, deploymentId, 'generic-agent', { token });
    try {
      for (const cursor of ['bogus', Buffer.from('tools:999').toString('base64url'), Buffer.from('prompts:1').toString('base64url'), '']) {
        await expect(client.listTools({ cursor })).rejects.toMatchObject({ code: -32602 });
      }
      await expect(client.listPrompts({ cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  test('answers bare JSON-RPC tools/list requests in pages bounded in tools and bytes', async ({
    service: t,
    world: { token, deploymentId, expected },
  }) => {
    const pages = await allPages(async (cursor) => {
      const res = await t.call('POST', `/v1/mcp/${deploymentId}`, {
        token,
        headers: { ...MCP_ACCEPT, 'mcp-protocol-version': '2025-03-26' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) },
      });
      expect(res.status, res.text).toBe(200);
      // The whole answer stays within a page's bytes and its envelope.
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(LIST_PAGE.maxBytes + 1024);
      return res.body.result as Page;
    });
    expectBounded(pages, expected);
    expect(pages[0]!.tools).toHaveLength(LIST_PAGE.maxItems);
    // The 60 kB tools are cut by bytes: fewer than a page's count fit in one page.
    expect(pages.some((p) => p.tools.length < LIST_PAGE.maxItems && p.nextCursor !== undefined)).toBe(true);
  });

  test(`refuses a manifest of more than ${MANIFEST_LIMITS.maxSteps} steps`, async ({ service: t, world: { token } }) => {
    const res = await t.call('POST', '/v1/workflows', {
      token,
      body: { name: 'Too long', manifest: chained('x', MANIFEST_LIMITS.maxSteps + 1) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.manifestErrors).toEqual([
      { path: '/steps', code: 'too_large', message: `the manifest has 201 steps; at most ${MANIFEST_LIMITS.maxSteps} are allowed` },
    ]);
  });
});
