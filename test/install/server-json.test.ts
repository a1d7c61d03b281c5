import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';

/**
 * The committed server.json for the official MCP Registry, validated against the registry's
 * published schema of the 2025-12-11 format (vendored in server.schema.json; its $comment names
 * the repository, path and commit it was copied from).
 */
const schema = JSON.parse(readFileSync(new URL('./server.schema.json', import.meta.url), 'utf8'));
const serverJson = JSON.parse(readFileSync(new URL('../../server.json', import.meta.url), 'utf8'));

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  // The only format the schema names: an absolute URI.
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv.compile(schema);
}

describe('server.json for the MCP Registry', () => {
  it('is valid against the registry schema and names the 2025-12-11 format', () => {
    const validate = validator();
    expect(validate(serverJson), JSON.stringify(validate.errors)).toBe(true);
    expect(serverJson.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
  });

  it('has one templated remote whose URL is a deployment tool endpoint, with a secret Authorization header', () => {
    expect(serverJson.remotes).toHaveLength(1);
    const [remote] = serverJson.remotes;
    expect(remote.type).toBe('streamable-http');
    expect(remote.url).toMatch(/^https:\/\/[^/]+\/v1\/mcp\/\{deployment_id\}$/);
    expect(remote.variables.deployment_id.isRequired).toBe(true);
    const url = new URL(remote.url.replace('{deployment_id}', 'dep_abc'));
    expect(url.pathname).toBe('/v1/mcp/dep_abc');
    expect(remote.headers).toEqual([expect.objectContaining({ name: 'Authorization', isSecret: true })]);
  });

  it('the schema refuses what the registry refuses', () => {
    const validate = validator();
    const { description: _description, ...withoutDescription } = serverJson;
    expect(validate(withoutDescription)).toBe(false);
    expect(validate({ ...serverJson, name: 'no-namespace' })).toBe(false);
    expect(validate({ ...serverJson, remotes: [{ ...serverJson.remotes[0], url: 'ftp://x/{deployment_id}' }] })).toBe(false);
  });
});
