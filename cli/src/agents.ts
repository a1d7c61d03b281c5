import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  CLIENT_DEFINITIONS,
  type ClientDefinition,
  type ConfigFileSpec,
  type InstallClient,
  type InstallTarget,
  type LocalSetup,
  type Machine,
} from '../../src/install/clients/index.js';
import { CliError } from './output.js';

/**
 * The agent clients `wfctl install` writes into and `wfctl doctor` checks: those of the service's
 * client list (src/install/clients/, the definitions behind the install page) that say where they
 * keep their configuration on a machine. This file gives them this machine's folders.
 */

/** The clients with a setup on a machine, in the install page's order. */
export const AGENT_CLIENTS: readonly InstallClient[] = CLIENT_DEFINITIONS.filter((c) => c.local !== null).map((c) => c.id);
export type AgentClientId = InstallClient;

/** How the entry carries the credential: the API key, or none (OAuth in the client, or an anonymous deployment). */
export type EntryCredential = 'key' | 'none';

export interface AgentClient {
  id: AgentClientId;
  title: string;
  /** The file the server entry goes in on this machine; null for a client without one (Claude Desktop). */
  configPath: string | null;
  /** The file's format and where the server entry goes in it; null for a client without one. */
  configFile: ConfigFileSpec | null;
  /** The executables and folders that say the client is on this machine. */
  binaries: string[];
  dirs: string[];
  headerConflict: LocalSetup['headerConflict'];
  /** The steps a person follows (a client without a file). */
  steps(target: InstallTarget): string[];
}

/** The folder of a desktop application's user data: ~/Library/Application Support, %APPDATA%, or $XDG_CONFIG_HOME (~/.config). */
function appData(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  if (process.platform === 'win32') return process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming');
  return process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
}

/** This machine, as the clients' definitions read it. */
export function thisMachine(): Machine {
  return { home: homedir(), appData: appData(), env: (name) => process.env[name] || undefined, join };
}

function definitionOf(id: AgentClientId): ClientDefinition & { local: LocalSetup } {
  const definition: ClientDefinition | undefined = CLIENT_DEFINITIONS.find((c) => c.id === id);
  if (!definition?.local) throw new Error(`${id} has no setup on a machine`);
  return definition as ClientDefinition & { local: LocalSetup };
}

export function agentClient(id: AgentClientId): AgentClient {
  const definition = definitionOf(id);
  const { local } = definition;
  const machine = thisMachine();
  return {
    id,
    title: definition.title,
    configPath: local.configFile?.path(machine) ?? null,
    configFile: local.configFile,
    binaries: local.binaries,
    dirs: local.dirs(machine),
    headerConflict: local.headerConflict,
    steps: (target) => definition.forms(target)[0]!.steps,
  };
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
