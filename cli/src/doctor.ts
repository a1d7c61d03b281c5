import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeConfigDirOf, keyEnvVarOf } from '../../src/install/clients/index.js';
import { plural } from '../../src/text.js';
import { agentClient, deploymentOfUrl, isFound, parseClients, thisMachine, urlOfEntry, type AgentClient } from './agents.js';
import { readConfig, serversOf, shown } from './config-files.js';
import type { Output } from './output.js';
import { probe } from './probe.js';

/**
 * `wfctl doctor [deployment]` (docs/cli.md, "Checking the installs"): for each agent client, whether
 * its file parses, holds the deployment's server, reaches it with the configured credential (the
 * MCP handshake with the official SDK client), and has no header-versus-OAuth conflict.
 */

interface Problem {
  code: string;
  message: string;
  /** What to do about it. */
  fix: string;
}

interface ServerReport {
  name: string;
  url: string;
  deploymentId: string;
  /** api_key (a header or the key-bound URL), env (a variable holds it), client (the client holds it), none (the client signs in with OAuth, or the deployment is anonymous). */
  credential: 'api_key' | 'env' | 'client' | 'none';
  connected: boolean;
  notes: string[];
  problems: Problem[];
}

interface ClientReport {
  client: string;
  title: string;
  path: string;
  status: 'ok' | 'problem' | 'not-configured';
  servers: ServerReport[];
  problems: Problem[];
}

/** The OAuth sign-ins Claude Code keeps in its credential file (Linux, or wherever no keychain is used), by server name. */
function claudeStoredSignIns(): Set<string> {
  const path = join(claudeConfigDirOf(thisMachine()), '.credentials.json');
  const names = new Set<string>();
  if (!existsSync(path)) return names;
  try {
    const stored = (
      JSON.parse(readFileSync(path, 'utf8')) as { mcpOAuth?: Record<string, { accessToken?: string; refreshToken?: string }> }
    ).mcpOAuth;
    for (const [key, value] of Object.entries(stored ?? {})) if (value?.accessToken || value?.refreshToken) names.add(key.split('|')[0]!);
  } catch {
    // An unreadable credential file is Claude Code's business: no conflict can be told from it.
  }
  return names;
}

/**
 * `${VAR}` and `${env:VAR}` in a header value, from this environment, for the one variable an install
 * writes for this server (`keyEnvVarOf`): any other variable of the shell (a cloud or code-host token)
 * is never read, so a planted entry cannot make doctor send it anywhere.
 */
function expand(value: string, allowed: string): { value: string; missing: string[]; refused: string[] } {
  const missing: string[] = [];
  const refused: string[] = [];
  const expanded = value.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (name !== allowed) {
      refused.push(name);
      return '';
    }
    const found = process.env[name];
    if (found === undefined || found === '') missing.push(name);
    return found ?? '';
  });
  return { value: expanded, missing, refused };
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** What a server check knows: the client, the server's name, the command that writes it again, and the service wfctl works with. */
interface CheckContext {
  client: AgentClient;
  name: string;
  install: string;
  service: string;
  signIns: () => Set<string>;
}

/**
 * The headers to send for an entry, from its `headers` (or Codex's `http_headers`): a variable
 * expanded only if it is the one an install writes, a VS Code input left to VS Code. The report's
 * credential and problems say what was found.
 */
function headersOf(entry: Record<string, unknown>, context: CheckContext, report: ServerReport): Record<string, string> {
  const { client, name, install } = context;
  const allowedVariable = keyEnvVarOf({ name });
  const headers: Record<string, string> = {};
  const rawHeaders = { ...((entry.headers as Record<string, unknown>) ?? {}), ...((entry.http_headers as Record<string, unknown>) ?? {}) };
  for (const [header, value] of Object.entries(rawHeaders)) {
    if (typeof value !== 'string') continue;
    if (/\$\{input:/.test(value)) {
      report.credential = 'client';
      report.notes.push(`${client.title} asks for the key and keeps it in its own secret storage: the key itself is not checked here.`);
      continue;
    }
    const { value: expanded, missing, refused } = expand(value, allowedVariable);
    if (refused.length > 0) {
      report.credential = 'env';
      report.problems.push({
        code: 'ENV_VAR_NOT_READ',
        message: `the header ${header} of '${name}' reads ${refused.join(', ')}; doctor reads only ${allowedVariable}, the variable wfctl install writes for it`,
        fix: `Run ${install} to write the entry again, or check the entry by hand.`,
      });
      continue;
    }
    if (missing.length > 0) {
      report.credential = 'env';
      report.problems.push({
        code: 'ENV_VAR_UNSET',
        message: `the header ${header} of '${name}' reads ${missing.join(', ')}, which is not set here`,
        fix: `Set ${missing.join(', ')} to the API key in the environment ${client.title} starts from, or run ${install} to write the key in.`,
      });
      continue;
    }
    headers[header] = expanded;
    if (header.toLowerCase() === 'authorization') report.credential = expanded === value ? 'api_key' : 'env';
  }
  bearerFromEnv(entry, context, report, headers);
  return headers;
}

/** Codex's `bearer_token_env_var`: the key read from the one variable an install writes, when it is set here. */
function bearerFromEnv(entry: Record<string, unknown>, context: CheckContext, report: ServerReport, headers: Record<string, string>): void {
  const { client, name, install } = context;
  const allowedVariable = keyEnvVarOf({ name });
  const envVar = entry.bearer_token_env_var;
  if (typeof envVar !== 'string') return;
  report.credential = 'env';
  if (envVar !== allowedVariable)
    report.problems.push({
      code: 'ENV_VAR_NOT_READ',
      message: `'${name}' takes its key from ${envVar}; doctor reads only ${allowedVariable}, the variable wfctl install writes for it`,
      fix: `Run ${install} to write the entry again, or check the entry by hand.`,
    });
  else if (process.env[envVar]) headers.Authorization = `Bearer ${process.env[envVar]}`;
  else
    report.problems.push({
      code: 'ENV_VAR_UNSET',
      message: `'${name}' takes its key from ${envVar}, which is not set here`,
      fix: `Set ${envVar} to the API key in the environment ${client.title} starts from, or run ${install} (it writes the key-bound URL, which needs no variable).`,
    });
}

/** The MCP handshake with the entry's URL and headers, and what its answer means for the report. */
async function handshake(
  url: string,
  headers: Record<string, string>,
  credentialSent: boolean,
  context: CheckContext,
  report: ServerReport,
) {
  const { client, name, install } = context;
  const answer = await probe(url, headers);
  if (answer.ok) {
    report.connected = true;
  } else if (answer.status === 401 && credentialSent) {
    report.problems.push({
      code: 'UNAUTHORIZED',
      message: `'${name}' is refused with 401 UNAUTHORIZED: ${answer.message || 'the key is unknown, revoked or expired'}`,
      fix: `Run ${install}: it creates a new key and writes it in.`,
    });
  } else if (answer.status === 401) {
    report.notes.push(`No credential is configured: ${client.title} signs in with OAuth on first use (that sign-in is not checked here).`);
  } else if (answer.status === 403) {
    report.problems.push({
      code: 'FORBIDDEN',
      message: `'${name}' is refused with 403 FORBIDDEN: ${answer.message || 'the key does not open this deployment'}`,
      fix: `Run ${install}: it creates a key for this deployment and writes it in.`,
    });
  } else if (answer.status === 404) {
    report.problems.push({
      code: 'NOT_FOUND',
      message: `'${name}' points at a deployment the service does not know (404): deleted, or another service's`,
      fix: 'Find the deployment with wfctl deployments list, then run wfctl install <deployment> again.',
    });
  } else {
    report.problems.push({
      code: answer.status === null ? 'UNREACHABLE' : 'ENDPOINT_ERROR',
      message: `'${name}' at ${report.url} did not complete the MCP handshake${answer.status ? ` (HTTP ${answer.status})` : ''}: ${answer.message}`,
      fix: 'Check that the service is running and reachable from here, and that the URL is the one wfctl install wrote.',
    });
  }
}

/** Header versus OAuth: the conflict the client's definition says it has (docs/install.md). */
async function headerConflict(url: string, keyBound: boolean, context: CheckContext, report: ServerReport): Promise<void> {
  const { client, name, install } = context;
  if (client.headerConflict === 'dropped-when-oauth-offered' && !keyBound) {
    const bare = await probe(url, {});
    if (!bare.ok && bare.status === 401 && bare.oauthOffered)
      report.problems.push({
        code: 'HEADER_OAUTH_CONFLICT',
        message: `${client.title} ignores the Authorization header of '${name}' because the endpoint offers OAuth: it will ask to sign in instead of sending the key`,
        fix: `Run ${install}: for ${client.title} it writes the key-bound URL, which never offers OAuth.`,
      });
  }
  if (client.headerConflict === 'stored-sign-in' && context.signIns().has(name))
    report.problems.push({
      code: 'HEADER_OAUTH_CONFLICT',
      message: `${client.title} has both an Authorization header and a stored OAuth sign-in for '${name}': releases differ on which one they send`,
      fix: `Keep one: \`claude mcp logout ${name}\` to keep the key, or run ${install} --oauth to keep the sign-in.`,
    });
}

async function checkServer(entry: Record<string, unknown>, context: CheckContext): Promise<ServerReport> {
  const { name, service } = context;
  const url = urlOfEntry(entry)!;
  const target = deploymentOfUrl(url)!;
  const report: ServerReport = {
    name,
    url: target.key ? url.split(target.key).join('<API_KEY>') : url,
    deploymentId: target.deploymentId,
    credential: target.keyBound ? 'api_key' : 'none',
    connected: false,
    notes: [],
    problems: [],
  };
  // Only the service wfctl works with is contacted: an entry naming another host (a planted one, or
  // another instance of the service) is reported, never sent a request or a credential.
  const origin = originOf(url);
  if (origin !== service) {
    report.notes.push(
      `'${name}' points at ${origin ?? 'an address that does not parse'}, not at ${service}: it was not contacted (check it with wfctl doctor --service <its origin>).`,
    );
    return report;
  }
  const headers = headersOf(entry, context, report);
  if (report.credential === 'client' || report.problems.length > 0) return report;
  const hasHeader = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
  await handshake(url, headers, hasHeader || target.keyBound, context, report);
  if (hasHeader) await headerConflict(url, target.keyBound, context, report);
  return report;
}

export async function doctor(options: { deploymentId?: string; clients: string; service: string; out: Output }) {
  const { all, ids } = parseClients(options.clients);
  const reports: ClientReport[] = [];
  let signIns: Set<string> | undefined;
  for (const id of ids) {
    const client = agentClient(id);
    if (!client.configPath) continue;
    const file = readConfig(client)!;
    if (all && !file.exists && !isFound(client)) continue;
    options.out.progress(`Checking ${client.title}…`);
    const install = `wfctl install ${options.deploymentId ?? '<deployment>'} --client ${client.id}`;
    const report: ClientReport = { client: client.id, title: client.title, path: file.path, status: 'ok', servers: [], problems: [] };
    reports.push(report);
    if (file.parseError) {
      report.problems.push({
        code: 'INVALID_FILE',
        message: `${shown(file.path)} does not parse: ${file.parseError}`,
        fix: `Fix the file (${client.title} cannot read it either), or remove it and run ${install}.`,
      });
    } else {
      const ours = Object.entries(serversOf(client, file)).filter(([, entry]) => {
        const target = deploymentOfUrl(urlOfEntry(entry));
        return target && (!options.deploymentId || target.deploymentId === options.deploymentId);
      });
      if (ours.length === 0 && options.deploymentId)
        report.problems.push({
          code: 'ENTRY_MISSING',
          message: `${file.exists ? shown(file.path) : `${shown(file.path)} (no such file)`} has no server for ${options.deploymentId}`,
          fix: `Run ${install}.`,
        });
      for (const [name, entry] of ours)
        report.servers.push(
          await checkServer(entry as Record<string, unknown>, {
            client,
            name,
            install,
            service: options.service,
            signIns: () => (signIns ??= claudeStoredSignIns()),
          }),
        );
      if (ours.length === 0 && !options.deploymentId) report.status = 'not-configured';
    }
    if (report.problems.length > 0 || report.servers.some((s) => s.problems.length > 0)) report.status = 'problem';
  }
  const problems = reports.reduce((n, r) => n + r.problems.length + r.servers.reduce((m, s) => m + s.problems.length, 0), 0);
  const configured = reports.some((r) => r.servers.length > 0);
  const general: Problem[] = [];
  if (!configured && problems === 0)
    general.push({
      code: 'NOTHING_INSTALLED',
      message: options.deploymentId
        ? `no agent client here holds ${options.deploymentId}`
        : 'no agent client here holds a deployment of the service',
      fix: `Run wfctl install ${options.deploymentId ?? '<deployment>'} --client all (or --client <name>).`,
    });
  return { ok: problems + general.length === 0, problems: problems + general.length, clients: reports, general };
}

export function printDoctor(result: Awaited<ReturnType<typeof doctor>>, out: Output): void {
  const printProblem = (p: Problem, indent: string) => {
    out.line(`${indent}✘ [${p.code}] ${p.message}`);
    out.line(`${indent}  → ${p.fix}`);
  };
  for (const r of result.clients) {
    out.line(`${r.title} (${shown(r.path)})${r.status === 'not-configured' ? ': no server of this service' : ''}`);
    for (const p of r.problems) printProblem(p, '  ');
    for (const s of r.servers) {
      out.line(`  ${s.problems.length === 0 ? '✔' : '✘'} ${s.name}: ${s.url}${s.connected ? ' - connected' : ''}`);
      for (const note of s.notes) out.line(`      ${note}`);
      for (const p of s.problems) printProblem(p, '    ');
    }
  }
  for (const p of result.general) printProblem(p, '');
  out.line(result.ok ? 'No problem found.' : `${plural(result.problems, 'problem')} found.`);
}
