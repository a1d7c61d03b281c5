/**
 * The catalogs a deployment is installed from by URL alone: a Claude Code plugin marketplace
 * (`marketplace.json` whose plugins are `archive` sources: a zip on the same origin with its
 * SHA-256) and an Agent Skills discovery index (v0.2.0, each entry with the digest of exactly the
 * bytes served). Pure: it takes the deployment's public data and its workflows already rendered as
 * skills, and returns documents and bytes.
 */
import { createHash } from 'node:crypto';
import { installBaseOf, pluginNameOf, marketplaceNameOf, serverNameOf, type InstallTarget } from './clients/index.js';
import { zipFiles } from './zip.js';
import { inertLine } from '../inert-text.js';

/** A workflow rendered as an Agent Skill (its SKILL.md), with the content digest of the version it renders. */
export interface SkillDocument {
  name: string;
  description: string;
  text: string;
  digest: string;
}

const SKILLS_INDEX_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
/** The key a private deployment's plugin asks for once, kept in Claude Code's secure storage. */
const PLUGIN_KEY_OPTION = 'api_key';
const PUBLISHER = 'Workflow service';

function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The plugin's MCP server entry: the endpoint, and for a private deployment the key from the plugin's sensitive userConfig. */
function pluginServer(target: InstallTarget): Record<string, unknown> {
  const server: Record<string, unknown> = { type: 'http', url: target.endpoint };
  if (!target.allowAnonymous) server.headers = { Authorization: `Bearer \${user_config.${PLUGIN_KEY_OPTION}}` };
  return server;
}

export interface PluginPackage {
  name: string;
  /** Changes exactly when what the plugin brings changes: the deployment's plugin.json, or a workflow's content digest. */
  version: string;
  /** The archive's path below the install base. */
  archivePath: string;
  zip: Buffer;
  sha256: string;
  description: string;
}

/**
 * The plugin of a deployment: `.claude-plugin/plugin.json` (its MCP server inline, and the key as a
 * sensitive userConfig option for a private deployment) and `skills/<name>/SKILL.md` per workflow.
 * The version is derived from the rest of plugin.json and the content digests of the workflow
 * versions it bundles (docs/marketplace.md, "Versions, pins and content digests"): a client sees
 * an update exactly when the deployment or the content of one of its workflows changes, and not
 * when only the service's wording of a skill does.
 */
export function pluginPackageOf(target: InstallTarget, skills: SkillDocument[]): PluginPackage {
  const name = pluginNameOf(target);
  // The deployment's own name and description reach Claude Code's plugin list and its model: inert like any text a person wrote.
  const description = inertLine(target.description ?? `The workflows of ${target.name}, as tools and skills`);
  const manifest: Record<string, unknown> = {
    name,
    description,
    author: { name: PUBLISHER },
    mcpServers: { [serverNameOf(target)]: pluginServer(target) },
  };
  if (!target.allowAnonymous) {
    manifest.userConfig = {
      [PLUGIN_KEY_OPTION]: {
        type: 'string',
        title: 'API key',
        description: `An API key for ${inertLine(target.name)} (starts with wfk_); made on the deployment's install page`,
        sensitive: true,
        required: true,
      },
    };
  }
  const skillFiles = [...skills]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((s) => ({ path: `skills/${s.name}/SKILL.md`, content: s.text }));
  const contents = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((s) => [s.name, s.digest]);
  const digest = sha256Hex(JSON.stringify({ manifest, contents }));
  const version = `1.0.0-c${digest.slice(0, 12)}`;
  const files = [{ path: '.claude-plugin/plugin.json', content: `${JSON.stringify({ ...manifest, version }, null, 2)}\n` }, ...skillFiles];
  const zip = zipFiles(files);
  return { name, version, archivePath: `plugin/${version}.zip`, zip, sha256: sha256Hex(zip), description };
}

/** One plugin entry of a marketplace: an `archive` source on the service's own origin, pinned by its SHA-256. */
export function marketplaceEntryOf(target: InstallTarget, pkg: PluginPackage): Record<string, unknown> {
  return {
    name: pkg.name,
    description: pkg.description,
    version: pkg.version,
    source: { source: 'archive', url: `${installBaseOf(target, !target.allowAnonymous)}/${pkg.archivePath}`, sha256: pkg.sha256 },
  };
}

/** A Claude Code marketplace (`claude plugin marketplace add <its URL>`). */
export function marketplaceOf(name: string, description: string, plugins: Record<string, unknown>[]): Record<string, unknown> {
  return { name, owner: { name: PUBLISHER }, metadata: { description: inertLine(description) }, plugins };
}

/** The catalog of one deployment: its one plugin. */
export function deploymentMarketplaceOf(target: InstallTarget, pkg: PluginPackage): Record<string, unknown> {
  return marketplaceOf(marketplaceNameOf(target), `The workflows of ${target.name}`, [marketplaceEntryOf(target, pkg)]);
}

/** The name of a user's catalog: stable per user, never one of Claude Code's reserved names. */
export function userMarketplaceNameOf(userId: string): string {
  return `workflow-deployments-${sha256Hex(userId).slice(0, 6)}`;
}

/** Where a skill's SKILL.md is served, relative to the index (so the document itself never repeats a key). */
export function skillPathOf(name: string): string {
  return `${name}/SKILL.md`;
}

/** The Agent Skills discovery index (v0.2.0) of a deployment, each digest over exactly the UTF-8 bytes served. */
export function skillsIndexOf(skills: SkillDocument[]): Record<string, unknown> {
  return {
    $schema: SKILLS_INDEX_SCHEMA,
    skills: skills.map((s) => ({
      name: s.name,
      type: 'skill-md',
      description: s.description,
      url: skillPathOf(s.name),
      digest: `sha256:${sha256Hex(Buffer.from(s.text, 'utf8'))}`,
    })),
  };
}
