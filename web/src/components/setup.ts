/**
 * Copy-ready IDE setup for a deployment's endpoint, in the formats of docs/api-keys.md
 * ("Connecting an IDE with a key"). A private deployment needs a personal API key in the
 * Authorization header; an anonymous one needs nothing.
 */
export interface SetupSnippet {
  ide: string;
  where: string;
  text: string;
}

export const SETUP_IDES = ['Claude Code', 'Cursor', 'VS Code'] as const;

/** The server's name in the IDE: the deployment's name as a slug. */
function serverId(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'workflows'
  );
}

/**
 * `key` is the secret of a key just created (private deployments); null for an anonymous
 * deployment. VS Code keeps the key in its secret storage: its file asks for it once instead of
 * holding it, so a committed `.vscode/mcp.json` carries no secret.
 */
export function setupSnippets(name: string, endpoint: string, key: string | null): SetupSnippet[] {
  const id = serverId(name);
  const inputId = `${id}-key`;
  return [
    {
      ide: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add --transport http ${id} ${endpoint}${key ? ` --header "Authorization: Bearer ${key}"` : ''}`,
    },
    {
      ide: 'Cursor',
      where: 'Put in ~/.cursor/mcp.json (or .cursor/mcp.json in a project):',
      text: JSON.stringify(
        { mcpServers: { [id]: key ? { url: endpoint, headers: { Authorization: `Bearer ${key}` } } : { url: endpoint } } },
        null,
        2,
      ),
    },
    {
      ide: 'VS Code',
      where: key
        ? 'Put in .vscode/mcp.json; VS Code asks for the key once (paste the key shown above) and keeps it in its secret storage:'
        : 'Put in .vscode/mcp.json:',
      text: JSON.stringify(
        key
          ? {
              inputs: [{ type: 'promptString', id: inputId, description: 'Workflow service API key', password: true }],
              servers: { [id]: { type: 'http', url: endpoint, headers: { Authorization: `Bearer \${input:${inputId}}` } } },
            }
          : { servers: { [id]: { type: 'http', url: endpoint } } },
        null,
        2,
      ),
    },
  ];
}
