import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The official MCP conformance suite against a deployment endpoint, through the same script an
 * operator runs (npm run mcp:conformance): a real loopback port, a seeded anonymous deployment.
 */
describe('MCP conformance suite', () => {
  it('passes server-initialize, ping, tools-list, prompts-list, resources-list and dns-rebinding-protection', async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const env = { ...process.env };
      delete env.DATABASE_URL;
      execFile(
        process.execPath,
        ['node_modules/tsx/dist/cli.mjs', 'scripts/mcp-conformance.ts'],
        { env, timeout: 150_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
      );
    });
    expect(output).toContain('6 passed, 0 failed');
    expect(code, output).toBe(0);
  }, 180_000);
});
