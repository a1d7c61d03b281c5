/**
 * VS Code and VS Code Insiders: the `mcp/install` link and `code --add-mcp` (the key asked for and
 * kept in VS Code's secret storage), and `servers` of the user `mcp.json` on a machine.
 */
import { defineClient, serverNameOf, shellQuote, type InstallForm, type InstallTarget, serverEntry, plainAndKeyedForms } from './shared.js';

/** The input id VS Code prompts for and keeps in its secret storage. */
const VSCODE_INPUT_ID = 'workflows-api-key';

/** The server definition VS Code's `mcp/install` link and `code --add-mcp` take: `name` plus the server entry, and `inputs`. */
function vscodeServer(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  const server: Record<string, unknown> = { name: serverNameOf(target), type: 'http', url: target.endpoint };
  if (withKey) {
    server.headers = { Authorization: `Bearer \${input:${VSCODE_INPUT_ID}}` };
    server.inputs = [
      { type: 'promptString', id: VSCODE_INPUT_ID, description: `API key for ${target.name} (starts with wfk_)`, password: true },
    ];
  }
  return server;
}

/** A server of VS Code's user `mcp.json` (under `servers`): with a key, the key itself in the header (the file is the user's own). */
function vscodeFileEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return serverEntry(target, withKey, { type: 'http', url: target.endpoint });
}

function vscodeDeeplink(server: Record<string, unknown>, insiders: boolean): { url: string; webUrl: string } {
  const url = `${insiders ? 'vscode-insiders' : 'vscode'}:mcp/install?${encodeURIComponent(JSON.stringify(server))}`;
  return { url, webUrl: `https://insiders.vscode.dev/redirect?url=${encodeURIComponent(url)}` };
}

function formsOf(target: InstallTarget, insiders: boolean, title: string, cli: string): InstallForm[] {
  const parts = (server: Record<string, unknown>) => ({
    ...vscodeDeeplink(server, insiders),
    commands: [`${cli} --add-mcp ${shellQuote(JSON.stringify(server))}`],
  });
  // The key is never in the link: VS Code prompts for it (input with password: true) and keeps it in its secret storage.
  return plainAndKeyedForms(target, 'deeplink', { what: `Add to ${title}`, ...parts(vscodeServer(target, false)) }, () => ({
    label: `Add to ${title} with an API key (${title} asks for it and keeps it in its secret storage)`,
    ...parts(vscodeServer(target, true)),
  }));
}

/** VS Code or its Insiders build: the same forms and file, under another scheme, program and folder. */
function vscodeClient<const Id extends 'vscode' | 'vscode-insiders'>(id: Id) {
  const insiders = id === 'vscode-insiders';
  const title = insiders ? 'VS Code Insiders' : 'VS Code';
  const cli = insiders ? 'code-insiders' : 'code';
  const folder = insiders ? 'Code - Insiders' : 'Code';
  return defineClient({
    id,
    title,
    forms: (target) => formsOf(target, insiders, title, cli),
    note: () => null,
    local: {
      binaries: [cli],
      dirs: (machine) => [machine.join(machine.appData, folder)],
      configFile: {
        format: 'json',
        path: (machine) => machine.join(machine.appData, folder, 'User', 'mcp.json'),
        container: 'servers',
        entry: vscodeFileEntry,
      },
    },
  });
}

export const vscode = vscodeClient('vscode');
export const vscodeInsiders = vscodeClient('vscode-insiders');
