import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  claudeCodeEntry,
  codexConfigToml,
  cursorEntry,
  geminiSettingsEntry,
  installFormsOf,
  vscodeFileEntry,
  windsurfConfig,
  type InstallTarget,
  type InstallClient,
} from '../../src/install/clients.js';
import { CliError } from './output.js';

/**
 * The agent clients `wfctl install` writes into and `wfctl doctor` checks: where each keeps its
 * configuration on this machine, how to tell it is installed, and its server entry. The entries
 * themselves come from src/install/clients.ts, the module the service's install page uses.
 */

export const AGENT_CLIENTS = [
  'claude-code',
  'cursor',
  'vscode',
  'vscode-insiders',
  'windsurf',
  'gemini-cli',
  'codex',
  'claude-desktop',
] as const satisfies readonly InstallClient[];
export type AgentClientId = (typeof AGENT_CLIENTS)[number];

/** How the entry carries the credential: the API key, or none (OAuth in the client, or an anonymous deployment). */
export type EntryCredential = 'key' | 'none';

export interface AgentClient {
  id: AgentClientId;
  title: string;
  /** The file the server entry goes in; null for a client without one (Claude Desktop). */
  configPath: string | null;
  /** JSON with the servers under `container`, Codex's TOML, or steps only. */
  format: 'json' | 'toml' | 'steps';
  container?: 'mcpServers' | 'servers';
  /** The executables and folders that say the client is on this machine. */
  binaries: string[];
  dirs: string[];
  /** The JSON entry (format json). */
  entry?(target: InstallTarget, credential: EntryCredential): Record<string, unknown>;
  /** The TOML table (format toml). */
  table?(target: InstallTarget, credential: EntryCredential): string;
  /** The steps a person follows (format steps). */
  steps?(target: InstallTarget): string[];
}

function home(): string {
  return homedir();
}

/** The folder of a desktop application's user data: ~/Library/Application Support, %APPDATA%, or $XDG_CONFIG_HOME (~/.config). */
function appData(): string {
  if (process.platform === 'darwin') return join(home(), 'Library', 'Application Support');
  if (process.platform === 'win32') return process.env.APPDATA ?? join(home(), 'AppData', 'Roaming');
  return process.env.XDG_CONFIG_HOME || join(home(), '.config');
}

function claudeConfigDir(): string {
  return process.env.CLAUDE_CONFIG_DIR || join(home(), '.claude');
}

function codexHome(): string {
  return process.env.CODEX_HOME || join(home(), '.codex');
}

export function agentClient(id: AgentClientId): AgentClient {
  switch (id) {
    case 'claude-code':
      return {
        id,
        title: 'Claude Code',
        // User scope: every project of this user sees the server. With CLAUDE_CONFIG_DIR set, Claude Code keeps the file there.
        configPath: process.env.CLAUDE_CONFIG_DIR ? join(process.env.CLAUDE_CONFIG_DIR, '.claude.json') : join(home(), '.claude.json'),
        format: 'json',
        container: 'mcpServers',
        binaries: ['claude'],
        dirs: [claudeConfigDir()],
        entry: (target, credential) => claudeCodeEntry(target, credential === 'key'),
      };
    case 'cursor':
      return {
        id,
        title: 'Cursor',
        configPath: join(home(), '.cursor', 'mcp.json'),
        format: 'json',
        container: 'mcpServers',
        binaries: ['cursor'],
        dirs: [join(home(), '.cursor')],
        entry: (target, credential) => cursorEntry(target, credential === 'key'),
      };
    case 'vscode':
    case 'vscode-insiders': {
      const folder = id === 'vscode' ? 'Code' : 'Code - Insiders';
      return {
        id,
        title: id === 'vscode' ? 'VS Code' : 'VS Code Insiders',
        configPath: join(appData(), folder, 'User', 'mcp.json'),
        format: 'json',
        container: 'servers',
        binaries: [id === 'vscode' ? 'code' : 'code-insiders'],
        dirs: [join(appData(), folder)],
        entry: (target, credential) => vscodeFileEntry(target, credential === 'key'),
      };
    }
    case 'windsurf':
      return {
        id,
        title: 'Windsurf',
        configPath: join(home(), '.codeium', 'windsurf', 'mcp_config.json'),
        format: 'json',
        container: 'mcpServers',
        binaries: ['windsurf'],
        dirs: [join(home(), '.codeium', 'windsurf')],
        entry: (target, credential) => Object.values(windsurfConfig(target, credential === 'key').mcpServers as object)[0],
      };
    case 'gemini-cli':
      return {
        id,
        title: 'Gemini CLI',
        configPath: join(home(), '.gemini', 'settings.json'),
        format: 'json',
        container: 'mcpServers',
        binaries: ['gemini'],
        dirs: [join(home(), '.gemini')],
        entry: (target, credential) => geminiSettingsEntry(target, credential === 'key'),
      };
    case 'codex':
      return {
        id,
        title: 'Codex CLI',
        configPath: join(codexHome(), 'config.toml'),
        format: 'toml',
        binaries: ['codex'],
        dirs: [codexHome()],
        // The key-bound URL: Codex takes a key only from an environment variable, which a file cannot set.
        table: (target, credential) => codexConfigToml(target, credential === 'key' ? 'key-bound' : 'none'),
      };
    case 'claude-desktop':
      return {
        id,
        title: 'Claude Desktop',
        configPath: null,
        format: 'steps',
        binaries: ['claude-desktop'],
        dirs: [join(appData(), 'Claude')],
        steps: (target) => installFormsOf(target).find((c) => c.client === 'claude-desktop')!.forms[0]!.steps,
      };
  }
}

function onPath(binary: string): boolean {
  const names = process.platform === 'win32' ? [`${binary}.exe`, `${binary}.cmd`] : [binary];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        // Not in this folder.
      }
    }
  }
  return false;
}

/** Whether the client is on this machine: one of its folders exists, or its executable is on PATH. */
export function isFound(client: AgentClient): boolean {
  return client.dirs.some((dir) => existsSync(dir)) || client.binaries.some(onPath);
}

/** The clients `--client` names: `all`, or names separated by commas. */
export function parseClients(value: string): { all: boolean; ids: AgentClientId[] } {
  if (value.trim() === 'all') return { all: true, ids: [...AGENT_CLIENTS] };
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(AGENT_CLIENTS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0)
    throw new CliError(
      'USAGE',
      `unknown client ${unknown.map((n) => `'${n}'`).join(', ') || "''"}`,
      `Pass --client all, or one or more of: ${AGENT_CLIENTS.join(', ')} (separated by commas).`,
    );
  return { all: false, ids: [...new Set(names)] as AgentClientId[] };
}

/** A deployment's endpoint in a configured URL: `…/mcp/<id>`, or the key-bound `…/install/<id>/<key>/mcp`. */
export function deploymentOfUrl(url: unknown): { deploymentId: string; key: string | null; keyBound: boolean } | null {
  if (typeof url !== 'string') return null;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const keyBound = /\/install\/(dep_[A-Za-z0-9]+)\/([^/]+)\/mcp$/.exec(path);
  if (keyBound) return { deploymentId: keyBound[1]!, key: decodeURIComponent(keyBound[2]!), keyBound: true };
  const plain = /\/mcp\/(dep_[A-Za-z0-9]+)$/.exec(path);
  if (plain) return { deploymentId: plain[1]!, key: null, keyBound: false };
  return null;
}

/** The URL of a JSON entry, whichever key the client uses for it. */
export function urlOfEntry(entry: unknown): string | null {
  if (!entry || typeof entry !== 'object') return null;
  const e = entry as Record<string, unknown>;
  for (const key of ['url', 'serverUrl', 'httpUrl']) if (typeof e[key] === 'string') return e[key] as string;
  return null;
}
