/**
 * What every agent client's definition (one file each in this folder) is made of: the install
 * target, the form and definition types, and the helpers the forms share. Pure: no database, no
 * HTTP, no file system.
 */
import { asciiSlug } from '../../text.js';

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
const API_KEY_PLACEHOLDER = '<API_KEY>';

/** How a form signs in: OAuth (the service's authorization server), an API key, or nothing (anonymous deployment). */
export type InstallAuth = 'oauth' | 'api_key' | 'none';
type InstallFormKind = 'deeplink' | 'command' | 'file' | 'steps';

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

/**
 * Where a machine keeps things, for the paths of a client's configuration: the command-line tool
 * fills it in from its own machine; the forms use SHOWN_MACHINE to name a path as a person reads it.
 */
export interface Machine {
  /** The user's home folder. */
  home: string;
  /** The folder of desktop applications' user data: ~/Library/Application Support, %APPDATA%, or $XDG_CONFIG_HOME (~/.config). */
  appData: string;
  /** An environment variable's value; undefined when it is unset or empty. */
  env(name: string): string | undefined;
  /** Joins the parts of a path the machine's way. */
  join(...parts: string[]): string;
}

/** The machine of the paths the forms print: the home folder as `~`, no variable set. */
const SHOWN_MACHINE: Machine = { home: '~', appData: '~/.config', env: () => undefined, join: (...parts) => parts.join('/') };

/** A JSON configuration file: the servers are an object under `container`, each entry keyed by the server's name. */
export interface JsonConfigFile {
  format: 'json';
  path(machine: Machine): string;
  container: 'mcpServers' | 'servers';
  /** The server entry: with a key, the key as this client takes it in a file; without, the endpoint alone (OAuth, or anonymous). */
  entry(target: InstallTarget, withKey: boolean): Record<string, unknown>;
}

/** A TOML configuration file: the server is the table `[<container>.<name>]`. */
export interface TomlConfigFile {
  format: 'toml';
  path(machine: Machine): string;
  container: 'mcp_servers';
  /** The server's table, as text; with a key, the key as this client takes it in a file. */
  table(target: InstallTarget, withKey: boolean): string;
}

export type ConfigFileSpec = JsonConfigFile | TomlConfigFile;

/** The path of a configuration file as the forms print it (`~/.codex/config.toml`). */
export function shownPathOf(file: ConfigFileSpec): string {
  return file.path(SHOWN_MACHINE);
}

/** A client on a user's machine, for the command-line tool (`wfctl install`, `wfctl doctor`). */
export interface LocalSetup {
  /** The executables that say the client is on a machine (any one on PATH). */
  binaries: string[];
  /** The folders that say the client is on a machine (any one that exists). */
  dirs(machine: Machine): string[];
  /** The file the server entry goes in; null for a client that takes a server only by hand (its first form's steps). */
  configFile: ConfigFileSpec | null;
  /**
   * A known conflict between a configured Authorization header and OAuth: `dropped-when-oauth-offered`,
   * the client ignores the header once the endpoint offers OAuth; `stored-sign-in`, the client may
   * keep an OAuth sign-in beside the header and releases differ on which they send (docs/install.md).
   */
  headerConflict?: 'dropped-when-oauth-offered' | 'stored-sign-in';
}

/** One agent client: its install forms (the install page, the API) and, where it has one, its setup on a machine (the command line). */
export interface ClientDefinition<Id extends string = string> {
  id: Id;
  title: string;
  /** The forms for a deployment, the preferred one first: OAuth (or no credential for an anonymous deployment) before a key. */
  forms(target: InstallTarget): InstallForm[];
  /** A fact the user should know about this client (a known limitation), or null. */
  note(target: InstallTarget): string | null;
  /** Null for a client the command-line tool does not configure (a deeplink-only app, the skills CLI). */
  local: LocalSetup | null;
}

/** A client's definition, its id kept as a literal type. */
export function defineClient<const Id extends string>(definition: ClientDefinition<Id>): ClientDefinition<Id> {
  return definition;
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

export function keyOf(target: InstallTarget): string {
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

export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function bearer(target: InstallTarget): Record<string, string> {
  return { Authorization: `Bearer ${keyOf(target)}` };
}

/** A client's server entry: `fields` naming the endpoint in the client's words, and with a key the Authorization header. */
export function serverEntry(target: InstallTarget, withKey: boolean, fields: Record<string, unknown>): Record<string, unknown> {
  return withKey ? { ...fields, headers: bearer(target) } : fields;
}

export function form(partial: Partial<InstallForm> & Pick<InstallForm, 'auth' | 'kind' | 'label'>): InstallForm {
  return { url: null, webUrl: null, commands: [], steps: [], file: null, usesApiKey: false, ...partial };
}

/** The auth of the form without a key: nothing to do for an anonymous deployment, OAuth otherwise. */
export function plainAuth(target: InstallTarget): InstallAuth {
  return target.allowAnonymous ? 'none' : 'oauth';
}

/** The auth of a form that carries the key where the deployment needs one. */
export function keyAuth(target: InstallTarget): InstallAuth {
  return target.allowAnonymous ? 'none' : 'api_key';
}

export function plainLabel(target: InstallTarget, what: string): string {
  return target.allowAnonymous ? `${what} (no sign-in: this deployment allows anonymous use)` : `${what}, then sign in (OAuth)`;
}

type FormParts = Omit<Partial<InstallForm>, 'auth' | 'kind' | 'label' | 'usesApiKey'>;

/**
 * A client's forms of one kind: the one without a key (OAuth, or nothing to do for an anonymous
 * deployment), labelled from `what`, and for a private deployment the one with an API key.
 */
export function plainAndKeyedForms(
  target: InstallTarget,
  kind: InstallForm['kind'],
  plain: FormParts & { what: string },
  keyed: () => FormParts & { label: string },
): InstallForm[] {
  const { what, ...parts } = plain;
  const forms = [form({ ...parts, auth: plainAuth(target), kind, label: plainLabel(target, what) })];
  if (!target.allowAnonymous) forms.push(form({ ...keyed(), auth: 'api_key', kind, usesApiKey: true }));
  return forms;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
