/**
 * Each agent client's one-step install form for a deployment's tool endpoint: a deeplink with its
 * web fallback, a command, or numbered steps with a file's content. Pure: it takes the deployment's
 * public data (and, when the caller has one, an API key) and returns text; no database, no HTTP.
 * The service (REST, GraphQL, the dashboard) and the command-line tool use this same module.
 *
 * The formats follow each client's own documentation or source; docs/install.md cites them.
 */
import { createHash } from 'node:crypto';
import { asciiSlug } from '../text.js';

/** What the forms are made from: a deployment's public data. */
export interface InstallTarget {
  deploymentId: string;
  /** The deployment's name, as its owner wrote it. */
  name: string;
  description: string | null;
  /** True: anyone may connect without a credential (spec 5.3); false: OAuth or the owner's key. */
  allowAnonymous: boolean;
  /** The tool endpoint, `{base_url}/mcp/<deploymentId>`. */
  endpoint: string;
  /** `{base_url}`, ending in /v1 (the install routes live under it). */
  baseUrl: string;
  /** An API key of the owner for this deployment; absent: forms that need one carry API_KEY_PLACEHOLDER. */
  apiKey?: string | null;
}

/** Stands for the key in forms made without one; the dashboard makes a key and asks again. */
export const API_KEY_PLACEHOLDER = '<API_KEY>';

export const INSTALL_CLIENTS = [
  'claude-code',
  'cursor',
  'vscode',
  'vscode-insiders',
  'windsurf',
  'gemini-cli',
  'codex',
  'lm-studio',
  'goose',
  'claude-desktop',
  'skills',
] as const;
export type InstallClient = (typeof INSTALL_CLIENTS)[number];

/** How a form signs in: OAuth (the service's authorization server), an API key, or nothing (anonymous deployment). */
export type InstallAuth = 'oauth' | 'api_key' | 'none';
export type InstallFormKind = 'deeplink' | 'command' | 'file' | 'steps';

export interface InstallForm {
  auth: InstallAuth;
  kind: InstallFormKind;
  /** One line saying what this form does. */
  label: string;
  /** A deeplink (kind deeplink). */
  url: string | null;
  /** An https page that opens the same deeplink where a custom scheme is not clickable (READMEs, some browsers). */
  webUrl: string | null;
  /** Commands to paste, in order. */
  commands: string[];
  /** Numbered steps, in order. */
  steps: string[];
  /** A file to write or merge (kind file). */
  file: { path: string; content: string } | null;
  /** Whether the form carries the API key (or its placeholder). */
  usesApiKey: boolean;
}

export interface ClientInstall {
  client: InstallClient;
  title: string;
  /** The preferred form first: OAuth (or no credential for an anonymous deployment) before a key. */
  forms: InstallForm[];
  /** A fact the user should know about this client (a known limitation), or null. */
  note: string | null;
}

const SERVER_NAME_MAX = 40;

/**
 * The name the server gets in every client's configuration: the deployment name's slug (letters,
 * digits and hyphens, which every client accepts as a key and as a command-line argument), else
 * `workflows`.
 */
export function serverNameOf(target: Pick<InstallTarget, 'name'>): string {
  const slug = asciiSlug(target.name).slice(0, SERVER_NAME_MAX).replace(/-+$/, '');
  return slug || 'workflows';
}

/** The environment variable Codex and the Gemini extension read the key from. */
export function keyEnvVarOf(target: Pick<InstallTarget, 'name'>): string {
  return `${serverNameOf(target).toUpperCase().replace(/-/g, '_')}_API_KEY`;
}

function keyOf(target: InstallTarget): string {
  return target.apiKey ?? API_KEY_PLACEHOLDER;
}

/** The base of a deployment's install routes: `{base_url}/install/<id>`, and `/<key>` for a private one's. */
export function installBaseOf(target: InstallTarget, withKey: boolean): string {
  const base = `${target.baseUrl}/install/${encodeURIComponent(target.deploymentId)}`;
  return withKey ? `${base}/${keyOf(target)}` : base;
}

/**
 * The key-bound endpoint: the same tool endpoint with the key in its path, for clients that drop a
 * configured header once a server offers OAuth. It never offers OAuth (docs/install.md).
 */
export function keyBoundEndpointOf(target: InstallTarget): string {
  return `${installBaseOf(target, true)}/mcp`;
}

/** Single-quotes a value for a POSIX shell. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function bearer(target: InstallTarget): Record<string, string> {
  return { Authorization: `Bearer ${keyOf(target)}` };
}

function form(partial: Partial<InstallForm> & Pick<InstallForm, 'auth' | 'kind' | 'label'>): InstallForm {
  return { url: null, webUrl: null, commands: [], steps: [], file: null, usesApiKey: false, ...partial };
}

/** The auth of the form without a key: nothing to do for an anonymous deployment, OAuth otherwise. */
function plainAuth(target: InstallTarget): InstallAuth {
  return target.allowAnonymous ? 'none' : 'oauth';
}

function plainLabel(target: InstallTarget, what: string): string {
  return target.allowAnonymous ? `${what} (no sign-in: this deployment allows anonymous use)` : `${what}, then sign in (OAuth)`;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

// --- Cursor ---------------------------------------------------------------------------------------

/**
 * Cursor's install link: `config` is the base64 of the server entry without its name
 * (cursor.com/docs/mcp/install-links). Its web fallback is a page of cursor.com that receives the
 * whole entry, so it is offered only for an entry without a key: a key-bound URL never goes to
 * another site (the custom-scheme link stays on this computer).
 */
export function cursorDeeplink(name: string, entry: Record<string, unknown>, carriesKey: boolean): { url: string; webUrl: string | null } {
  const query = `name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`;
  return {
    url: `cursor://anysphere.cursor-deeplink/mcp/install?${query}`,
    webUrl: carriesKey ? null : `https://cursor.com/en/install-mcp?${query}`,
  };
}

/** Cursor's `mcpServers` entry (~/.cursor/mcp.json): with a key, the key-bound URL (Cursor drops a header when OAuth is offered). */
export function cursorEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return { url: withKey ? keyBoundEndpointOf(target) : target.endpoint };
}

function cursor(target: InstallTarget): ClientInstall {
  const name = serverNameOf(target);
  const forms: InstallForm[] = [];
  const plain = cursorDeeplink(name, cursorEntry(target, false), false);
  forms.push(form({ auth: plainAuth(target), kind: 'deeplink', label: plainLabel(target, 'Add to Cursor'), ...plain }));
  if (!target.allowAnonymous) {
    // Cursor drops a configured header when the server offers OAuth: the key goes in the path instead.
    const keyed = cursorDeeplink(name, cursorEntry(target, true), true);
    forms.push(
      form({ auth: 'api_key', kind: 'deeplink', label: 'Add to Cursor with an API key (key-bound URL)', ...keyed, usesApiKey: true }),
    );
  }
  return {
    client: 'cursor',
    title: 'Cursor',
    forms,
    note: target.allowAnonymous
      ? null
      : 'Cursor ignores a configured Authorization header when the server also offers OAuth, so its API-key form uses the key-bound URL, which never offers OAuth.',
  };
}

// --- VS Code --------------------------------------------------------------------------------------

/** The input id VS Code prompts for and keeps in its secret storage. */
const VSCODE_INPUT_ID = 'workflows-api-key';

/** The server definition VS Code's `mcp/install` link and `code --add-mcp` take: `name` plus the server entry, and `inputs`. */
export function vscodeServer(target: InstallTarget, withKey: boolean): Record<string, unknown> {
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
export function vscodeFileEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return withKey ? { type: 'http', url: target.endpoint, headers: bearer(target) } : { type: 'http', url: target.endpoint };
}

export function vscodeDeeplink(server: Record<string, unknown>, insiders: boolean): { url: string; webUrl: string } {
  const url = `${insiders ? 'vscode-insiders' : 'vscode'}:mcp/install?${encodeURIComponent(JSON.stringify(server))}`;
  return { url, webUrl: `https://insiders.vscode.dev/redirect?url=${encodeURIComponent(url)}` };
}

function vscode(target: InstallTarget, insiders: boolean): ClientInstall {
  const cli = insiders ? 'code-insiders' : 'code';
  const title = insiders ? 'VS Code Insiders' : 'VS Code';
  const forms: InstallForm[] = [];
  const plain = vscodeServer(target, false);
  forms.push(
    form({
      auth: plainAuth(target),
      kind: 'deeplink',
      label: plainLabel(target, `Add to ${title}`),
      ...vscodeDeeplink(plain, insiders),
      commands: [`${cli} --add-mcp ${shellQuote(JSON.stringify(plain))}`],
    }),
  );
  if (!target.allowAnonymous) {
    // The key is never in the link: VS Code prompts for it (input with password: true) and keeps it in its secret storage.
    const keyed = vscodeServer(target, true);
    forms.push(
      form({
        auth: 'api_key',
        kind: 'deeplink',
        label: `Add to ${title} with an API key (${title} asks for it and keeps it in its secret storage)`,
        ...vscodeDeeplink(keyed, insiders),
        commands: [`${cli} --add-mcp ${shellQuote(JSON.stringify(keyed))}`],
        usesApiKey: true,
      }),
    );
  }
  return { client: insiders ? 'vscode-insiders' : 'vscode', title, forms, note: null };
}

// --- LM Studio ------------------------------------------------------------------------------------

export function lmStudioDeeplink(name: string, entry: Record<string, unknown>): string {
  return `lmstudio://add_mcp?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`;
}

function lmStudio(target: InstallTarget): ClientInstall {
  const name = serverNameOf(target);
  const forms: InstallForm[] = [
    form({
      auth: plainAuth(target),
      kind: 'deeplink',
      label: plainLabel(target, 'Add to LM Studio'),
      url: lmStudioDeeplink(name, { url: target.endpoint }),
    }),
  ];
  if (!target.allowAnonymous) {
    forms.push(
      form({
        auth: 'api_key',
        kind: 'deeplink',
        label: 'Add to LM Studio with an API key',
        url: lmStudioDeeplink(name, { url: target.endpoint, headers: bearer(target) }),
        usesApiKey: true,
      }),
    );
  }
  return { client: 'lm-studio', title: 'LM Studio', forms, note: null };
}

// --- Goose ----------------------------------------------------------------------------------------

export function gooseDeeplink(target: InstallTarget): string {
  const params = new URLSearchParams({
    url: target.endpoint,
    type: 'streamable_http',
    id: serverNameOf(target),
    name: target.name,
    description: target.description ?? `Workflows of ${target.name}`,
  });
  return `goose://extension?${params.toString().replace(/\+/g, '%20')}`;
}

function goose(target: InstallTarget): ClientInstall {
  return {
    client: 'goose',
    title: 'Goose',
    forms: [form({ auth: plainAuth(target), kind: 'deeplink', label: plainLabel(target, 'Add to Goose'), url: gooseDeeplink(target) })],
    note: 'Goose install links carry no header: a private deployment signs in with OAuth.',
  };
}

// --- Claude Code ----------------------------------------------------------------------------------

/** Claude Code's server entry: `claude mcp add-json`, and `mcpServers` of ~/.claude.json (user scope). */
export function claudeCodeEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return withKey ? { type: 'http', url: target.endpoint, headers: bearer(target) } : { type: 'http', url: target.endpoint };
}

function claudeCode(target: InstallTarget): ClientInstall {
  const name = serverNameOf(target);
  const forms: InstallForm[] = [];
  forms.push(
    form({
      auth: plainAuth(target),
      kind: 'command',
      label: plainLabel(target, 'Add to Claude Code'),
      commands: [
        `claude mcp add --transport http ${shellQuote(name)} ${shellQuote(target.endpoint)}`,
        ...(target.allowAnonymous ? [] : [`claude mcp login ${shellQuote(name)}`]),
      ],
    }),
  );
  if (!target.allowAnonymous) {
    forms.push(
      form({
        auth: 'api_key',
        kind: 'command',
        label: 'Add to Claude Code with an API key',
        commands: [
          `claude mcp add --transport http ${shellQuote(name)} ${shellQuote(target.endpoint)} --header ${shellQuote(`Authorization: Bearer ${keyOf(target)}`)}`,
        ],
        usesApiKey: true,
      }),
      form({
        auth: 'api_key',
        kind: 'command',
        label: 'The same as JSON (claude mcp add-json)',
        commands: [`claude mcp add-json ${shellQuote(name)} ${shellQuote(JSON.stringify(claudeCodeEntry(target, true)))}`],
        usesApiKey: true,
      }),
      form({
        auth: 'api_key',
        kind: 'command',
        label: 'Claude Code releases that drop the header when OAuth is offered: the key-bound URL',
        commands: [`claude mcp add --transport http ${shellQuote(name)} ${shellQuote(keyBoundEndpointOf(target))}`],
        usesApiKey: true,
      }),
    );
  }
  const marketplace = claudeMarketplaceUrlOf(target);
  forms.push(
    form({
      auth: target.allowAnonymous ? 'none' : 'api_key',
      kind: 'command',
      label: 'Install as a plugin: the endpoint and every workflow as a skill',
      commands: [
        `claude plugin marketplace add ${shellQuote(marketplace)}`,
        `claude plugin install ${shellQuote(`${pluginNameOf(target)}@${marketplaceNameOf(target)}`)}`,
      ],
      usesApiKey: !target.allowAnonymous,
    }),
  );
  return { client: 'claude-code', title: 'Claude Code', forms, note: pluginNote(target) };
}

/**
 * Claude Code installs a plugin only from an `https://` archive on a host that is not loopback,
 * link-local or a cloud metadata address (it checks the name, not the address): on a service reached
 * at such a base URL the plugin form cannot work, and the page says so instead of leaving a dead end.
 */
function pluginNote(target: InstallTarget): string | null {
  const url = new URL(target.baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || /^169\.254\./.test(host);
  if (url.protocol === 'https:' && !loopback) return null;
  return `The plugin form needs the service at a public https:// address: Claude Code refuses plugin archives from ${url.protocol === 'https:' ? 'a loopback or link-local host' : 'an http:// address'} (${url.origin}). Use the other forms here, or set PUBLIC_BASE_URL to the https address of a proxy in front of the service (docs/install.md, "Claude Code plugin marketplace").`;
}

/**
 * The plugin name Claude Code shows: the server name and 6 hex digits of the deployment id's hash,
 * so two deployments of the same name stay two plugins in one catalog (kebab-case, as Claude Code asks).
 */
export function pluginNameOf(target: Pick<InstallTarget, 'name' | 'deploymentId'>): string {
  return `${serverNameOf(target)}-${createHash('sha256').update(target.deploymentId, 'utf8').digest('hex').slice(0, 6)}`;
}

/** The name of a deployment's own catalog (a marketplace name must not look like an official one). */
export function marketplaceNameOf(target: Pick<InstallTarget, 'name' | 'deploymentId'>): string {
  return `${pluginNameOf(target)}-workflows`;
}

export function claudeMarketplaceUrlOf(target: InstallTarget): string {
  return `${installBaseOf(target, !target.allowAnonymous)}/marketplace.json`;
}

// --- Gemini CLI -----------------------------------------------------------------------------------

/** Gemini's settings.json entry: `httpUrl` is Streamable HTTP (`url` would mean SSE). */
export function geminiSettingsEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return withKey ? { httpUrl: target.endpoint, headers: bearer(target) } : { httpUrl: target.endpoint };
}

/** A Gemini CLI extension: name, version, the server, and the key as a sensitive setting read from the environment. */
export function geminiExtension(target: InstallTarget, version: string): Record<string, unknown> {
  const envVar = keyEnvVarOf(target);
  const server: Record<string, unknown> = { httpUrl: target.endpoint };
  const extension: Record<string, unknown> = {
    name: serverNameOf(target),
    version,
    description: target.description ?? `Workflows of ${target.name}`,
    mcpServers: { [serverNameOf(target)]: server },
  };
  if (!target.allowAnonymous) {
    server.headers = { Authorization: `Bearer \${${envVar}}` };
    extension.settings = [{ name: 'API key', description: `API key for ${target.name} (starts with wfk_)`, envVar, sensitive: true }];
  }
  return extension;
}

function geminiCli(target: InstallTarget): ClientInstall {
  const name = serverNameOf(target);
  const forms: InstallForm[] = [
    form({
      auth: plainAuth(target),
      kind: 'command',
      label: plainLabel(target, 'Add to Gemini CLI'),
      commands: [`gemini mcp add -t http ${shellQuote(name)} ${shellQuote(target.endpoint)}`],
    }),
  ];
  if (!target.allowAnonymous) {
    forms.push(
      form({
        auth: 'api_key',
        kind: 'command',
        label: 'Add to Gemini CLI with an API key',
        commands: [
          `gemini mcp add -t http -H ${shellQuote(`Authorization: Bearer ${keyOf(target)}`)} ${shellQuote(name)} ${shellQuote(target.endpoint)}`,
        ],
        usesApiKey: true,
      }),
    );
  }
  forms.push(
    form({
      auth: target.allowAnonymous ? 'none' : 'api_key',
      kind: 'file',
      label: 'Or write it in settings.json',
      steps: ['Open ~/.gemini/settings.json (or .gemini/settings.json in a project).', 'Merge this entry under "mcpServers".'],
      file: {
        path: '~/.gemini/settings.json',
        content: json({ mcpServers: { [name]: geminiSettingsEntry(target, !target.allowAnonymous) } }),
      },
      usesApiKey: !target.allowAnonymous,
    }),
  );
  const extensionSteps = [
    `Make the folder ~/.gemini/extensions/${name}/ and write this file in it.`,
    ...(target.allowAnonymous ? [] : [`Start Gemini CLI: it asks for the API key once (a sensitive setting, kept out of the file).`]),
  ];
  forms.push(
    form({
      auth: target.allowAnonymous ? 'none' : 'api_key',
      kind: 'file',
      label: 'Or as a Gemini CLI extension (gemini-extension.json)',
      steps: extensionSteps,
      file: { path: `~/.gemini/extensions/${name}/gemini-extension.json`, content: json(geminiExtension(target, '1.0.0')) },
      usesApiKey: false,
    }),
  );
  return {
    client: 'gemini-cli',
    title: 'Gemini CLI',
    forms,
    note: target.allowAnonymous ? null : 'Gemini CLI signs in to a server with OAuth from its interactive screen (/mcp auth).',
  };
}

// --- Codex CLI ------------------------------------------------------------------------------------

function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * Codex's `[mcp_servers.<name>]` table. The credential: `env`, the key read from the environment
 * variable keyEnvVarOf names (the default for a private deployment); `key-bound`, the key-bound URL
 * (nothing to set in the environment); `none`, the endpoint alone (anonymous, or `codex mcp login`).
 */
export function codexConfigToml(
  target: InstallTarget,
  credential: 'env' | 'key-bound' | 'none' = target.allowAnonymous ? 'none' : 'env',
): string {
  const url = credential === 'key-bound' ? keyBoundEndpointOf(target) : target.endpoint;
  const lines = [`[mcp_servers.${serverNameOf(target)}]`, `url = ${tomlString(url)}`];
  if (credential === 'env') lines.push(`bearer_token_env_var = ${tomlString(keyEnvVarOf(target))}`);
  return `${lines.join('\n')}\n`;
}

function codex(target: InstallTarget): ClientInstall {
  const name = serverNameOf(target);
  const envVar = keyEnvVarOf(target);
  const forms: InstallForm[] = [
    form({
      auth: plainAuth(target),
      kind: 'command',
      label: plainLabel(target, 'Add to Codex'),
      commands: [
        `codex mcp add ${shellQuote(name)} --url ${shellQuote(target.endpoint)}`,
        ...(target.allowAnonymous ? [] : [`codex mcp login ${shellQuote(name)}`]),
      ],
    }),
  ];
  if (!target.allowAnonymous) {
    forms.push(
      form({
        auth: 'api_key',
        kind: 'command',
        label: `Add to Codex with an API key read from ${envVar} (Codex has no header flag)`,
        commands: [
          `export ${envVar}=${shellQuote(keyOf(target))}`,
          `codex mcp add ${shellQuote(name)} --url ${shellQuote(target.endpoint)} --bearer-token-env-var ${envVar}`,
        ],
        usesApiKey: true,
      }),
    );
  }
  forms.push(
    form({
      auth: target.allowAnonymous ? 'none' : 'api_key',
      kind: 'file',
      label: 'Or write it in config.toml',
      steps: [
        'Open ~/.codex/config.toml.',
        'Add this table.',
        ...(target.allowAnonymous ? [] : [`Set ${envVar} to your API key in the environment Codex starts from.`]),
      ],
      file: { path: '~/.codex/config.toml', content: codexConfigToml(target) },
      usesApiKey: false,
    }),
  );
  return { client: 'codex', title: 'Codex CLI', forms, note: null };
}

// --- Windsurf -------------------------------------------------------------------------------------

export function windsurfConfig(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = { serverUrl: target.endpoint };
  if (withKey) entry.headers = bearer(target);
  return { mcpServers: { [serverNameOf(target)]: entry } };
}

function windsurf(target: InstallTarget): ClientInstall {
  const steps = [
    'In Windsurf, open Settings → Cascade → MCP servers → View raw config (the file ~/.codeium/windsurf/mcp_config.json).',
    'Merge this entry under "mcpServers" and save.',
    'Press Refresh in the MCP servers panel.',
  ];
  const forms: InstallForm[] = [
    form({
      auth: plainAuth(target),
      kind: 'file',
      label: plainLabel(target, 'Add to Windsurf'),
      steps,
      file: { path: '~/.codeium/windsurf/mcp_config.json', content: json(windsurfConfig(target, false)) },
    }),
  ];
  if (!target.allowAnonymous) {
    forms.push(
      form({
        auth: 'api_key',
        kind: 'file',
        label: 'Add to Windsurf with an API key',
        steps,
        file: { path: '~/.codeium/windsurf/mcp_config.json', content: json(windsurfConfig(target, true)) },
        usesApiKey: true,
      }),
    );
  }
  return { client: 'windsurf', title: 'Windsurf', forms, note: 'Windsurf has no install link: the entry goes in its MCP config file.' };
}

// --- Claude Desktop and claude.ai -----------------------------------------------------------------

function claudeDesktop(target: InstallTarget): ClientInstall {
  return {
    client: 'claude-desktop',
    title: 'Claude Desktop and claude.ai',
    forms: [
      form({
        auth: plainAuth(target),
        kind: 'steps',
        label: plainLabel(target, 'Add as a custom connector'),
        steps: [
          'Open Settings → Connectors.',
          'Choose "Add custom connector".',
          `Name it ${target.name} and paste the URL ${target.endpoint}`,
          target.allowAnonymous ? 'Choose Add.' : 'Choose Add, then Connect, and sign in to this service when asked.',
        ],
      }),
    ],
    note: 'Custom connectors take a URL and sign in with OAuth; they send no header of your choosing.',
  };
}

// --- Agent Skills (the skills CLI) ----------------------------------------------------------------

/** The origin-and-path the `skills` CLI takes: it reads `<this>/.well-known/agent-skills/index.json`. */
export function skillsSourceOf(target: InstallTarget): string {
  return installBaseOf(target, !target.allowAnonymous);
}

function skills(target: InstallTarget): ClientInstall {
  return {
    client: 'skills',
    title: 'Agent Skills (any agent, with the skills CLI)',
    forms: [
      form({
        auth: target.allowAnonymous ? 'none' : 'api_key',
        kind: 'command',
        label: "Install the deployment's workflows as skills",
        commands: [`npx skills add ${shellQuote(skillsSourceOf(target))}`],
        usesApiKey: !target.allowAnonymous,
      }),
    ],
    note: 'Skills are instructions only: connect the endpoint too (another client above) for the tools. The skills CLI needs Node.js 22 or later (on Node 20 it stops with an error about fs/promises glob).',
  };
}

/** Every client's forms for a deployment, in the order the dashboard shows them. */
export function installFormsOf(target: InstallTarget): ClientInstall[] {
  return [
    claudeCode(target),
    cursor(target),
    vscode(target, false),
    vscode(target, true),
    windsurf(target),
    geminiCli(target),
    codex(target),
    lmStudio(target),
    goose(target),
    claudeDesktop(target),
    skills(target),
  ];
}

/** Everything a deployment's install page shows: the addresses, then every client's forms. */
export interface DeploymentInstall {
  deploymentId: string;
  name: string;
  /** The name the server gets in each client's configuration. */
  serverName: string;
  endpoint: string;
  allowAnonymous: boolean;
  /** Whether the forms carry a real key (false: API_KEY_PLACEHOLDER stands in for it). */
  apiKeyIncluded: boolean;
  /** The endpoint with the key in its path (never offers OAuth); null for an anonymous deployment. */
  keyBoundEndpoint: string | null;
  /** `claude plugin marketplace add <this>`. */
  claudeMarketplaceUrl: string;
  claudePlugin: string;
  /** `npx skills add <this>`: it reads `<this>/.well-known/agent-skills/index.json`. */
  skillsSource: string;
  skillsIndexUrl: string;
  clients: ClientInstall[];
}

export function deploymentInstallOf(target: InstallTarget): DeploymentInstall {
  const skillsSource = skillsSourceOf(target);
  return {
    deploymentId: target.deploymentId,
    name: target.name,
    serverName: serverNameOf(target),
    endpoint: target.endpoint,
    allowAnonymous: target.allowAnonymous,
    apiKeyIncluded: Boolean(target.apiKey),
    keyBoundEndpoint: target.allowAnonymous ? null : keyBoundEndpointOf(target),
    claudeMarketplaceUrl: claudeMarketplaceUrlOf(target),
    claudePlugin: `${pluginNameOf(target)}@${marketplaceNameOf(target)}`,
    skillsSource,
    skillsIndexUrl: `${skillsSource}/.well-known/agent-skills/index.json`,
    clients: installFormsOf(target),
  };
}
