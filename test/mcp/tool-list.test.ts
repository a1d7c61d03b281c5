import { describe, expect } from 'vitest';
import { renderCatalog } from '../../src/mcp/render/catalog.js';
import type { RenderableWorkflow } from '../../src/mcp/render/types.js';
import { listAnswerText, promptPage, toolList, toolPage } from '../../src/mcp/tool-list.js';
import { initializeRequest, MCP_ACCEPT, MODERN } from '../helpers/mcp.js';
import { seedManifest, seedPlan, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';

/**
 * The tool list made once per catalog and revision (src/mcp/tool-list.ts), and served as the same
 * compact JSON on every request, for every revision, whatever the client's id.
 */

function workflow(id: string, name: string): RenderableWorkflow {
  return { workflowId: id, name, description: `What ${name} does.`, version: '1.0.0', manifest: seedManifest() } as RenderableWorkflow;
}

describe('toolList', () => {
  const catalog = renderCatalog([workflow('wf_one', 'First'), workflow('wf_two', 'Second "quoted" \u2028 line')], 'adapter_three');

  serviceTest('the list is made once per catalog and revision, with titles and output schemas only from 2025-06-18 on', () => {
    const titled = toolList(catalog, true);
    const plain = toolList(catalog, false);
    expect(toolList(catalog, true)).toBe(titled);
    expect(toolList(catalog, false)).toBe(plain);
    expect(titled.map((t) => t.name)).toEqual(catalog.tools.map((t) => t.name));
    expect(titled.every((t) => typeof t.title === 'string' && t.outputSchema?.type === 'object')).toBe(true);
    expect(plain.some((t) => 'title' in t || 'outputSchema' in t)).toBe(false);
    expect(plain.every((t) => t.annotations.readOnlyHint && t.inputSchema.type === 'object')).toBe(true);
  });
});

describe('listAnswerText', () => {
  serviceTest('writes a kept page into the answer, byte for byte what JSON.stringify writes, whatever the id', () => {
    const catalog = renderCatalog([workflow('wf_a', 'Alpha'), workflow('wf_b', 'Beta \u2028 "b"')], 'adapter_three');
    const tools = toolPage(catalog, true, undefined);
    const prompts = promptPage(catalog, false, undefined);
    expect(toolPage(catalog, true, undefined).tools).toBe(tools.tools);
    for (const id of [1, 'an "id" \u2028 with </script>', null]) {
      for (const result of [tools, prompts]) {
        const message = { jsonrpc: '2.0', id, result: { ...result } };
        expect(listAnswerText(message)).toBe(JSON.stringify(message));
        expect(message.result).toEqual(result);
      }
    }
    // The page's kept text is what goes out: a list never changes once made, so a change made here
    // behind its back shows in JSON.stringify's text and not in the answer's.
    const kept = { jsonrpc: '2.0', id: 7, result: { tools: tools.tools } };
    const first = tools.tools[0]!;
    const description = first.description;
    first.description = 'changed';
    try {
      expect(JSON.stringify(kept)).toContain('changed');
      expect(listAnswerText(kept)).not.toContain('changed');
    } finally {
      first.description = description;
    }
    // A page that is not a kept one is serialized as it is.
    const copy = { jsonrpc: '2.0', id: 7, result: { tools: tools.tools.map((t) => ({ ...t, description: 'copied' })) } };
    expect(listAnswerText(copy)).toBe(JSON.stringify(copy));
    expect(listAnswerText({ jsonrpc: '2.0', id: 8, error: { code: -1, message: 'no' } })).toBe(
      '{"jsonrpc":"2.0","id":8,"error":{"code":-1,"message":"no"}}',
    );
  });
});

describe('tools/list through the endpoint', () => {
  serviceTest('every revision gets its own list, and the same bytes on every request', async ({ service, alice }) => {
    await seedPlan(service, await userIdOf(service, alice), 'team');
    const wf = await seedWorkflow(service, await userIdOf(service, alice), { name: 'Cached list' });
    const created = await service.call('POST', '/v1/deployments', { token: alice, body: { name: 'Lists', workflowIds: [wf] } });
    const path = `/v1/mcp/${created.body.data.deploymentId}`;

    async function legacyList(protocolVersion: string, id: unknown): Promise<string> {
      const init = await service.call('POST', path, {
        token: alice,
        headers: MCP_ACCEPT,
        body: initializeRequest({ clientName: 'generic-agent', protocolVersion }),
      });
      expect(init.status, init.text).toBe(200);
      const session = init.headers.get('mcp-session-id')!;
      const res = await service.call('POST', path, {
        token: alice,
        headers: { ...MCP_ACCEPT, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion },
        body: { jsonrpc: '2.0', id, method: 'tools/list' },
      });
      expect(res.status, res.text).toBe(200);
      return res.text;
    }
    async function modernList(id: unknown): Promise<string> {
      const res = await service.call('POST', path, {
        token: alice,
        headers: { ...MCP_ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
        body: {
          jsonrpc: '2.0',
          id,
          method: 'tools/list',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientInfo': { name: 'generic-agent', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        },
      });
      expect(res.status, res.text).toBe(200);
      return res.text;
    }

    for (const [label, list] of [
      ['2025-06-18', (id: unknown) => legacyList('2025-06-18', id)],
      ['2025-03-26', (id: unknown) => legacyList('2025-03-26', id)],
      [MODERN, modernList],
    ] as const) {
      const first = await list(1);
      const again = await list(1);
      const other = await list('id "with" quotes');
      expect(again, label).toBe(first);
      const parsed = JSON.parse(first);
      // Compact JSON, as JSON.stringify writes it.
      expect(JSON.stringify(parsed), label).toBe(first);
      expect(JSON.parse(other).id).toBe('id "with" quotes');
      expect(JSON.parse(other).result).toEqual(parsed.result);
      const tools = parsed.result.tools as Record<string, unknown>[];
      expect(tools.length, label).toBe(5);
      expect(
        tools.every((t) => 'title' in t === (label !== '2025-03-26')),
        label,
      ).toBe(true);
      if (label === MODERN) expect(parsed.result).toMatchObject({ resultType: 'complete' });
    }
  });
});
