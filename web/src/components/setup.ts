/**
 * Copy-ready IDE setup for a deployment's endpoint (docs/mcp.md, "Connecting"). A private
 * deployment needs the owner's token in a header, referenced from the environment so the copied
 * text holds no secret; an anonymous one needs nothing.
 */
export interface SetupSnippet {
  ide: string;
  where: string;
  text: string;
}

export function setupSnippets(name: string, endpoint: string, anonymous: boolean): SetupSnippet[] {
  const id = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'workflows';
  const header = { Authorization: 'Bearer ${env:WORKFLOW_TOKEN}' };
  return [
    {
      ide: 'Claude Code',
      where: 'Run in a terminal:',
      text: `claude mcp add --transport http ${id} ${endpoint}${anonymous ? '' : ' \\\n  --header "Authorization: Bearer $WORKFLOW_TOKEN"'}`,
    },
    {
      ide: 'Cursor',
      where: 'Put in .cursor/mcp.json (or ~/.cursor/mcp.json):',
      text: JSON.stringify({ mcpServers: { [id]: anonymous ? { url: endpoint } : { url: endpoint, headers: header } } }, null, 2),
    },
    {
      ide: 'VS Code',
      where: 'Put in .vscode/mcp.json:',
      text: JSON.stringify({ servers: { [id]: anonymous ? { type: 'http', url: endpoint } : { type: 'http', url: endpoint, headers: { Authorization: 'Bearer ${input:workflow-token}' } } }, ...(anonymous ? {} : { inputs: [{ id: 'workflow-token', type: 'promptString', description: 'Workflow service token', password: true }] }) }, null, 2),
    },
  ];
}
