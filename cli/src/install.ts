import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import {
  serverNameOf,
  type ConfigFileSpec,
  type InstallTarget,
  type JsonConfigFile,
  type PublicInstallTarget,
  type TomlConfigFile,
} from '../../src/install/clients/index.js';
import {
  AGENT_CLIENTS,
  agentClient,
  deploymentOfUrl,
  isFound,
  parseClients,
  urlOfEntry,
  type AgentClient,
  type EntryCredential,
} from './agents.js';
import type { Api } from './api.js';
import { mergeJson, mergeToml, readConfig, serversOf, shown, writeConfig, type ConfigFile } from './config-files.js';
import { CliError, type Output } from './output.js';
import { probe } from './probe.js';

/**
 * `wfctl install <deployment> --client <name>|all` (docs/cli.md, "Installing into agent clients"):
 * the deployment's server entry merged into each client's own configuration file, with one API key
 * for them all (given, found in the files already and still accepted, or created once).
 */

/** What `GET /v1/deployments/:id/install` answers (the fields used here). */
export interface DeploymentInstallData {
  deploymentId: string;
  name: string;
  serverName: string;
  endpoint: string;
  allowAnonymous: boolean;
  keyBoundEndpoint: string | null;
  /** What the service makes every form from: the entries written here are made from it, with this machine's key. */
  target: PublicInstallTarget;
}

interface ClientResult {
  client: string;
  title: string;
  path: string | null;
  /** create, update, unchanged (written or, with --dry-run, would be); manual (steps to follow); failed. */
  action: 'create' | 'update' | 'unchanged' | 'manual' | 'failed';
  /** The entry written (the key shown as <API_KEY>). */
  entry?: unknown;
  steps?: string[];
  problem?: { code: string; message: string; fix: string };
}

const KEY_SHOWN = '<API_KEY>';

/** The keys already configured for this deployment: a Bearer header, or the key in a key-bound URL. */
function keysInEntry(entry: unknown, deploymentId: string): string[] {
  const keys: string[] = [];
  const url = deploymentOfUrl(urlOfEntry(entry));
  if (!url || url.deploymentId !== deploymentId) return keys;
  if (url.key) keys.push(url.key);
  const headers = (entry as { headers?: Record<string, unknown> }).headers;
  for (const [name, value] of Object.entries(headers ?? {}))
    if (name.toLowerCase() === 'authorization' && typeof value === 'string') {
      const bearer = /^Bearer\s+(\S+)$/i.exec(value.trim());
      if (bearer && !bearer[1]!.includes('${')) keys.push(bearer[1]!);
    }
  return keys;
}

async function chooseKey(
  api: Api,
  info: DeploymentInstallData,
  files: Map<AgentClient, ConfigFile | null>,
  options: { apiKey?: string; dryRun: boolean; out: Output },
): Promise<{ secret: string | null; source: 'option' | 'reused' | 'created' | 'new'; keyId?: string; prefix?: string; name?: string }> {
  if (options.apiKey) {
    const given = options.apiKey.trim();
    options.out.progress('Checking the API key given…');
    const answer = await probe(info.endpoint, { Authorization: `Bearer ${given}` });
    if (!answer.ok && (answer.status === 401 || answer.status === 403))
      throw new CliError(
        answer.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
        `the API key given is refused by the deployment's endpoint (${answer.status}): ${answer.message}`,
        'Pass a key of this deployment (scope mcp or api), or leave --api-key and WFCTL_INSTALL_KEY out and one is created.',
      );
    return { secret: given, source: 'option' };
  }
  const found = new Set<string>();
  for (const [client, file] of files) {
    if (!file?.data) continue;
    for (const entry of Object.values(serversOf(client, file))) for (const key of keysInEntry(entry, info.deploymentId)) found.add(key);
  }
  for (const key of found) {
    options.out.progress('Checking the key already configured…');
    if ((await probe(info.endpoint, { Authorization: `Bearer ${key}` })).ok) return { secret: key, source: 'reused' };
  }
  if (options.dryRun) return { secret: null, source: 'new' };
  options.out.progress('Creating an API key for this deployment…');
  // Named for this machine ("wfctl on <hostname>: <deployment>"; the service numbers a repeat), so
  // the Account page tells apart the keys made by the dashboard and by each machine.
  const made = await api.call<{ apiKey: { keyId: string; prefix: string; secret: string; name: string } }>(
    'POST',
    `/deployments/${encodeURIComponent(info.deploymentId)}/install/key`,
    { madeBy: `wfctl on ${hostname() || 'this machine'}` },
  );
  return { secret: made.apiKey.secret, source: 'created', keyId: made.apiKey.keyId, prefix: made.apiKey.prefix, name: made.apiKey.name };
}

function masked(value: unknown, secret: string | null): unknown {
  if (!secret) return value;
  return JSON.parse(JSON.stringify(value).split(secret).join(KEY_SHOWN));
}

type Written = { text: string; entry: unknown; same: boolean } | { problem: NonNullable<ClientResult['problem']> };

/** Codex's table merged into its TOML file; `same` when the file's table already says it. */
function writeToml(spec: TomlConfigFile, file: ConfigFile, target: InstallTarget, credential: EntryCredential, existing: unknown): Written {
  const name = serverNameOf(target);
  const table = spec.table(target, credential === 'key');
  const text = mergeToml(file, spec.container, name, table);
  let same: boolean;
  try {
    parseToml(text);
    same = isDeepStrictEqual(existing, (parseToml(table)[spec.container] as Record<string, unknown>)[name]);
  } catch (error) {
    return {
      problem: {
        code: 'INVALID_FILE',
        message: `${shown(file.path)} defines '${name}' in a way wfctl cannot replace (${(error as Error).message.split('\n')[0]})`,
        fix: `Remove the server '${name}' from ${shown(file.path)}, then run wfctl install again.`,
      },
    };
  }
  return { text, entry: table, same };
}

function writeJson(spec: JsonConfigFile, file: ConfigFile, target: InstallTarget, credential: EntryCredential, existing: unknown): Written {
  const entry = spec.entry(target, credential === 'key');
  return { text: mergeJson(file, spec.container, serverNameOf(target), entry), entry, same: isDeepStrictEqual(existing, entry) };
}

/** The client's file with the deployment's server entry in it, or why it was left as it is. */
function writeOne(
  client: AgentClient,
  spec: ConfigFileSpec,
  file: ConfigFile,
  target: InstallTarget,
  credential: EntryCredential,
): Written {
  const name = serverNameOf(target);
  if (file.parseError)
    return {
      problem: {
        code: 'INVALID_FILE',
        message: `${shown(file.path)} does not parse (${file.parseError}); it was left as it is`,
        fix: `Fix or remove ${shown(file.path)}, then run wfctl install again.`,
      },
    };
  const existing = serversOf(client, file)[name];
  const container = spec.container;
  const servers = file.data?.[container];
  if (servers !== undefined && (typeof servers !== 'object' || Array.isArray(servers)))
    return {
      problem: {
        code: 'INVALID_FILE',
        message: `"${container}" in ${shown(file.path)} is not an object`,
        fix: `Make "${container}" an object of servers, then run wfctl install again.`,
      },
    };
  const ours = existing === undefined || deploymentOfUrl(urlOfEntry(existing))?.deploymentId === target.deploymentId;
  if (!ours)
    return {
      problem: {
        code: 'CONFLICT',
        message: `${shown(file.path)} already has a server named '${name}' that is not this deployment; it was left as it is`,
        fix: `Rename or remove the server '${name}' in ${shown(file.path)}, then run wfctl install again.`,
      },
    };
  return spec.format === 'toml' ? writeToml(spec, file, target, credential, existing) : writeJson(spec, file, target, credential, existing);
}

export async function install(options: {
  api: Api;
  deploymentId: string;
  clients: string;
  apiKey?: string;
  oauth: boolean;
  dryRun: boolean;
  out: Output;
}) {
  const { api, out } = options;
  const { all, ids } = parseClients(options.clients);
  const chosen = ids.map(agentClient);
  const selected = all ? chosen.filter(isFound) : chosen;
  const skipped = all ? chosen.filter((c) => !isFound(c)).map((c) => c.id) : [];
  if (selected.length === 0)
    throw new CliError(
      'NOT_FOUND',
      'no agent client found on this machine (none of their folders or programs)',
      `Name the client to create its file: wfctl install ${options.deploymentId} --client cursor (one of ${AGENT_CLIENTS.filter((id) => agentClient(id).configFile).join(', ')}).`,
    );
  out.progress('Reading the deployment…');
  const info = await api.call<DeploymentInstallData>('GET', `/deployments/${encodeURIComponent(options.deploymentId)}/install`);
  const files = new Map(selected.map((client) => [client, readConfig(client)] as const));

  const credential: EntryCredential = info.allowAnonymous || options.oauth ? 'none' : 'key';
  const key =
    credential === 'key' && selected.some((c) => c.configFile !== null)
      ? await chooseKey(api, info, files, { apiKey: options.apiKey, dryRun: options.dryRun, out })
      : null;
  const target: InstallTarget = { ...info.target, apiKey: key?.secret ?? null };

  const results: ClientResult[] = [];
  for (const [client, file] of files) {
    if (!file || !client.configFile) {
      results.push({ client: client.id, title: client.title, path: null, action: 'manual', steps: client.steps(target) });
      continue;
    }
    const made = writeOne(client, client.configFile, file, target, credential);
    if ('problem' in made) {
      results.push({ client: client.id, title: client.title, path: file.path, action: 'failed', problem: made.problem });
      continue;
    }
    // Unchanged: the entry already says the same (the file is not rewritten, whatever its layout).
    const action = !file.exists ? 'create' : made.same || made.text === file.text ? 'unchanged' : 'update';
    if (!options.dryRun && action !== 'unchanged') writeConfig(file.path, made.text);
    results.push({ client: client.id, title: client.title, path: file.path, action, entry: masked(made.entry, key?.secret ?? null) });
  }

  const result = {
    dryRun: options.dryRun,
    deploymentId: info.deploymentId,
    serverName: info.serverName,
    endpoint: info.endpoint,
    auth: credential === 'key' ? 'api_key' : info.allowAnonymous ? 'none' : 'oauth',
    apiKey: key ? { source: key.source, keyId: key.keyId ?? null, prefix: key.prefix ?? null, name: key.name ?? null } : null,
    clients: results,
    skipped,
  };
  return result;
}

/** The failure of an install that could not write into some client, with what to do; null when every one went well. */
export function installFailure(result: Awaited<ReturnType<typeof install>>): CliError | null {
  const failed = result.clients.filter((r) => r.action === 'failed');
  if (failed.length === 0) return null;
  return new CliError(
    failed[0]!.problem!.code,
    `not installed into ${failed.map((f) => f.title).join(', ')}: ${failed.map((f) => f.problem!.message).join('; ')}`,
    failed.map((f) => f.problem!.fix).join(' '),
    result,
  );
}

/** The lines a person reads after an install. */
export function printInstall(result: Awaited<ReturnType<typeof install>>, out: Output): void {
  const would = result.dryRun ? 'would ' : '';
  if (result.apiKey?.source === 'created')
    out.line(
      `Created the API key “${result.apiKey.name}” (${result.apiKey.prefix}…, scope mcp, this deployment only); it is written only into the files below.`,
    );
  if (result.apiKey?.source === 'reused') out.line('Kept the API key already configured (still accepted).');
  if (result.apiKey?.source === 'new') out.line('An API key would be created for this deployment (shown below as <API_KEY>).');
  if (result.auth === 'oauth') out.line('No key written: each client signs in with OAuth on first use.');
  for (const r of result.clients) {
    if (r.action === 'failed') continue;
    if (r.action === 'manual') {
      out.line(`${r.title}: no file to write; add it yourself:`);
      r.steps!.forEach((step, i) => out.line(`  ${i + 1}. ${step}`));
      continue;
    }
    const verb = { create: 'create', update: 'update', unchanged: 'unchanged:', manual: '', failed: '' }[r.action];
    out.line(`${r.title}: ${r.action === 'unchanged' ? 'unchanged' : `${would}${verb}`} ${shown(r.path!)} (server '${result.serverName}')`);
    if (result.dryRun)
      out.line(
        (typeof r.entry === 'string' ? r.entry : JSON.stringify(r.entry, null, 2))
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n'),
      );
  }
  if (result.skipped.length > 0) out.line(`Skipped (not found on this machine): ${result.skipped.join(', ')}`);
  if (!result.dryRun) out.line(`Check them: wfctl doctor ${result.deploymentId}`);
}
