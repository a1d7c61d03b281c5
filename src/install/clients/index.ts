/**
 * The agent clients a deployment installs into, one file each in this folder: each holds the
 * client's one-step install forms for a deployment's tool endpoint (a deeplink with its web
 * fallback, a command, or numbered steps with a file's content) and, for the clients the
 * command-line tool configures, where the client keeps its configuration on a machine and the server
 * entry it takes. The list below is plain data: the service (REST, GraphQL, the dashboard's install
 * page) and the command-line tool (`wfctl install`, `wfctl doctor`) read the same definitions.
 *
 * Pure: a deployment's public data (and, when the caller has one, an API key) in, text out. The
 * formats follow each client's own documentation or source; docs/install.md cites them.
 */
import { claudeCode, claudeMarketplaceUrlOf, marketplaceNameOf, pluginNameOf } from './claude-code.js';
import { claudeDesktop } from './claude-desktop.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import { geminiCli } from './gemini-cli.js';
import { goose } from './goose.js';
import { lmStudio } from './lm-studio.js';
import { skills, skillsSourceOf } from './skills.js';
import { keyBoundEndpointOf, serverNameOf, type InstallForm, type InstallTarget } from './shared.js';
import { vscode, vscodeInsiders } from './vscode.js';
import { windsurf } from './windsurf.js';

export {
  installBaseOf,
  keyEnvVarOf,
  serverNameOf,
  type ClientDefinition,
  type ConfigFileSpec,
  type InstallForm,
  type InstallTarget,
  type JsonConfigFile,
  type LocalSetup,
  type Machine,
  type TomlConfigFile,
} from './shared.js';
export { claudeConfigDirOf, marketplaceNameOf, pluginNameOf } from './claude-code.js';

/** Every client, in the order the install page shows them. */
export const CLIENT_DEFINITIONS = [
  claudeCode,
  cursor,
  vscode,
  vscodeInsiders,
  windsurf,
  geminiCli,
  codex,
  lmStudio,
  goose,
  claudeDesktop,
  skills,
] as const;

export type InstallClient = (typeof CLIENT_DEFINITIONS)[number]['id'];
export const INSTALL_CLIENTS: readonly InstallClient[] = CLIENT_DEFINITIONS.map((c) => c.id);

export interface ClientInstall {
  client: InstallClient;
  title: string;
  /** The preferred form first: OAuth (or no credential for an anonymous deployment) before a key. */
  forms: InstallForm[];
  /** A fact the user should know about this client (a known limitation), or null. */
  note: string | null;
}

/** Every client's forms for a deployment, in the order the dashboard shows them. */
export function installFormsOf(target: InstallTarget): ClientInstall[] {
  return CLIENT_DEFINITIONS.map((c) => ({ client: c.id, title: c.title, forms: c.forms(target), note: c.note(target) }));
}

/** A deployment's public data the forms are made from: the install target without a key. */
export type PublicInstallTarget = Omit<InstallTarget, 'apiKey'>;

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
  /** What every form is made from: a program that makes a client's entry itself (wfctl) adds its own key to it. */
  target: PublicInstallTarget;
  clients: ClientInstall[];
}

export function deploymentInstallOf(target: InstallTarget): DeploymentInstall {
  const skillsSource = skillsSourceOf(target);
  const { apiKey, ...publicTarget } = target;
  return {
    deploymentId: target.deploymentId,
    name: target.name,
    serverName: serverNameOf(target),
    endpoint: target.endpoint,
    allowAnonymous: target.allowAnonymous,
    apiKeyIncluded: Boolean(apiKey),
    keyBoundEndpoint: target.allowAnonymous ? null : keyBoundEndpointOf(target),
    claudeMarketplaceUrl: claudeMarketplaceUrlOf(target),
    claudePlugin: `${pluginNameOf(target)}@${marketplaceNameOf(target)}`,
    skillsSource,
    skillsIndexUrl: `${skillsSource}/.well-known/agent-skills/index.json`,
    target: publicTarget,
    clients: installFormsOf(target),
  };
}
