import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse as parseToml } from 'smol-toml';
import type { AgentClient } from './agents.js';
import { writeFileSafely } from './safe-write.js';

/** An agent client's configuration file as found: its text and what it parses to, or why it does not. */
export interface ConfigFile {
  path: string;
  exists: boolean;
  text: string;
  /** The parsed document (a JSON object, or Codex's TOML as an object); undefined when absent or unparsable. */
  data: Record<string, unknown> | undefined;
  /** Why the file does not parse (or is not an object at its top). */
  parseError: string | null;
}

export function readConfig(client: AgentClient): ConfigFile | null {
  const path = client.configPath;
  if (!path) return null;
  if (!existsSync(path)) return { path, exists: false, text: '', data: undefined, parseError: null };
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') return { path, exists: true, text, data: {}, parseError: null };
  try {
    const data = client.configFile?.format === 'toml' ? (parseToml(text) as Record<string, unknown>) : (JSON.parse(text) as unknown);
    if (!data || typeof data !== 'object' || Array.isArray(data))
      return { path, exists: true, text, data: undefined, parseError: 'its top level is not an object' };
    return { path, exists: true, text, data: data as Record<string, unknown>, parseError: null };
  } catch (error) {
    return { path, exists: true, text, data: undefined, parseError: (error as Error).message.split('\n')[0]! };
  }
}

/** The server entries of a client's configuration: under the container its definition names (`mcpServers`, `servers`, Codex's `mcp_servers`). */
export function serversOf(client: AgentClient, file: ConfigFile): Record<string, unknown> {
  const servers = client.configFile ? file.data?.[client.configFile.container] : undefined;
  return servers && typeof servers === 'object' && !Array.isArray(servers) ? (servers as Record<string, unknown>) : {};
}

/** The indentation the file already uses (two spaces for a new one). */
function indentOf(text: string): string | number {
  const match = /^[{[]\s*\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : 2;
}

/** The JSON file with `entry` as server `name` under `container`; every other key kept, in its place. */
export function mergeJson(file: ConfigFile, container: string, name: string, entry: unknown): string {
  const data: Record<string, unknown> = { ...(file.data ?? {}) };
  const servers = data[container];
  data[container] = { ...(servers && typeof servers === 'object' && !Array.isArray(servers) ? servers : {}), [name]: entry };
  return `${JSON.stringify(data, null, indentOf(file.text))}\n`;
}

const TABLE_HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

/** A TOML dotted key split into its parts (bare or quoted), for comparing table headers. */
function keyParts(key: string): string[] {
  const parts: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/gy;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(key)) && match[0] !== '') parts.push(match[1] ?? match[2] ?? match[3]!);
  return parts;
}

/**
 * A TOML configuration (Codex's config.toml) with the table `[<container>.<name>]` (and its
 * sub-tables) replaced by `table`, appended at the end; every other line (comments included) kept as it was.
 */
export function mergeToml(file: ConfigFile, container: string, name: string, table: string): string {
  const lines = file.text.split('\n');
  const kept: string[] = [];
  let inOurs = false;
  for (const line of lines) {
    const header = TABLE_HEADER.exec(line);
    if (header) {
      const parts = keyParts(header[1]!);
      inOurs = parts.length >= 2 && parts[0] === container && parts[1] === name;
    }
    if (!inOurs) kept.push(line);
  }
  let text = kept.join('\n').replace(/\n+$/, '');
  if (text !== '') text += '\n\n';
  return `${text}${table}`;
}

/** Writes an agent client's file atomically, readable by its owner only whatever its mode was: it may hold a key. */
export function writeConfig(path: string, text: string): void {
  writeFileSafely(path, text, { private: true });
}

/** The path as a person reads it: the home folder as ~. */
export function shown(path: string): string {
  const home = homedir();
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}
