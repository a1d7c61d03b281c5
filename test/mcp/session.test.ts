import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { adapterForClient, negotiateVersion } from '../../src/mcp/protocol.js';
import { createSessionCodec } from '../../src/mcp/session.js';

/** The signed Mcp-Session-Id and its key, which is what lets any instance serve any request. */
describe('tool-endpoint sessions', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'wf-session-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const claims = { deploymentId: 'dep_abc', adapter: 'adapter_two', protocolVersion: '2025-06-18' } as const;

  it('reads back what it issued, and every id is distinct', async () => {
    const codec = createSessionCodec({ mcpSessionSecret: 's'.repeat(32), dataDir: dir() });
    const a = await codec.issue(claims);
    const b = await codec.issue(claims);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[\x21-\x7e]+$/);
    expect(await codec.read(a)).toEqual(claims);
  });

  it('refuses a tampered payload, a foreign key and junk', async () => {
    const codec = createSessionCodec({ mcpSessionSecret: 's'.repeat(32), dataDir: dir() });
    const id = await codec.issue(claims);
    const [prefix, , sig] = id.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ d: 'dep_other', a: 'adapter_one', v: '2025-11-25', n: 'x' })).toString('base64url');
    expect(await codec.read(`${prefix}.${forgedPayload}.${sig}`)).toBeNull();
    expect(await createSessionCodec({ mcpSessionSecret: 't'.repeat(32), dataDir: dir() }).read(id)).toBeNull();
    for (const junk of ['', 'mcp1', 'mcp1..', 'a.b.c', `${id}x`, 'x'.repeat(600)]) expect(await codec.read(junk)).toBeNull();
  });

  it('reads an id it has verified again as the same claims, and still reads the first of more ids than it keeps', async () => {
    const codec = createSessionCodec({ mcpSessionSecret: 's'.repeat(32), dataDir: dir() });
    const ids = await Promise.all(Array.from({ length: 10_050 }, (_, i) => codec.issue({ ...claims, deploymentId: `dep_${i}` })));
    for (const id of ids) await codec.read(id);
    expect(await codec.read(ids[0]!)).toEqual({ ...claims, deploymentId: 'dep_0' });
    expect(await codec.read(ids[10_049]!)).toEqual({ ...claims, deploymentId: 'dep_10049' });
    expect(await codec.read(ids[1]!)).toBe(await codec.read(ids[1]!));
    // A verified id is still refused by an instance with another key.
    expect(await createSessionCodec({ mcpSessionSecret: 't'.repeat(32), dataDir: dir() }).read(ids[1]!)).toBeNull();
  });

  it('without a secret, instances sharing DATA_DIR share a key and others do not', async () => {
    const shared = dir();
    const [one, two] = [
      createSessionCodec({ mcpSessionSecret: null, dataDir: shared }),
      createSessionCodec({ mcpSessionSecret: null, dataDir: shared }),
    ];
    // Both create the key at the same moment: one file wins and both use it.
    const [a, b] = await Promise.all([one.issue(claims), two.issue(claims)]);
    expect(await two.read(a)).toEqual(claims);
    expect(await one.read(b)).toEqual(claims);
    expect(await createSessionCodec({ mcpSessionSecret: null, dataDir: dir() }).read(a)).toBeNull();
  });

  it('MCP_SESSION_SECRET is checked by the configuration', () => {
    expect(loadConfig({ MCP_SESSION_SECRET: 'k'.repeat(32) }).mcpSessionSecret).toBe('k'.repeat(32));
    expect(loadConfig({}).mcpSessionSecret).toBeNull();
    expect(() => loadConfig({ MCP_SESSION_SECRET: 'short' })).toThrow(/MCP_SESSION_SECRET must be at least 32 characters/);
    try {
      loadConfig({
        NODE_ENV: 'production',
        OIDC_ISSUER: 'https://idp.example/',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://idp.example/jwks',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toMatch(/MCP_SESSION_SECRET must be set in production/);
    }
  });

  it('maps client names to adapters and negotiates revisions', () => {
    expect(['claude-code', 'Claude Code', 'claude_code', 'claude-code-cli'].map(adapterForClient)).toEqual(Array(4).fill('adapter_one'));
    expect(['Cursor', 'cursor-vscode'].map(adapterForClient)).toEqual(['adapter_two', 'adapter_two']);
    expect(['', 'claude-ai', 'vscode', 'my-cursor'].map(adapterForClient)).toEqual(Array(4).fill('adapter_three'));
    expect(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', 'x'].map(negotiateVersion)).toEqual([
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2025-11-25',
      '2025-11-25',
    ]);
  });
});
