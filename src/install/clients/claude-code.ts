/**
 * Claude Code: `claude mcp add` commands (OAuth, a header, the key-bound URL), its plugin from the
 * deployment's own marketplace, and `mcpServers` of ~/.claude.json (user scope) on a machine.
 */
import { createHash } from 'node:crypto';
import {
  defineClient,
  form,
  installBaseOf,
  keyAuth,
  keyBoundEndpointOf,
  keyOf,
  plainAuth,
  plainLabel,
  serverNameOf,
  shellQuote,
  type InstallForm,
  type InstallTarget,
  type Machine,
  serverEntry,
} from './shared.js';

/** Claude Code's server entry: `claude mcp add-json`, and `mcpServers` of ~/.claude.json (user scope). */
function claudeCodeEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return serverEntry(target, withKey, { type: 'http', url: target.endpoint });
}

/** Claude Code's own folder (its OAuth sign-ins are kept there): $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDirOf(machine: Machine): string {
  return machine.env('CLAUDE_CONFIG_DIR') ?? machine.join(machine.home, '.claude');
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

/** The forms with an API key: a header, the same as JSON, and the key-bound URL. */
function keyForms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  return [
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
  ];
}

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const plain = form({
    auth: plainAuth(target),
    kind: 'command',
    label: plainLabel(target, 'Add to Claude Code'),
    commands: [
      `claude mcp add --transport http ${shellQuote(name)} ${shellQuote(target.endpoint)}`,
      ...(target.allowAnonymous ? [] : [`claude mcp login ${shellQuote(name)}`]),
    ],
  });
  const plugin = form({
    auth: keyAuth(target),
    kind: 'command',
    label: 'Install as a plugin: the endpoint and every workflow as a skill',
    commands: [
      `claude plugin marketplace add ${shellQuote(claudeMarketplaceUrlOf(target))}`,
      `claude plugin install ${shellQuote(`${pluginNameOf(target)}@${marketplaceNameOf(target)}`)}`,
    ],
    usesApiKey: !target.allowAnonymous,
  });
  return [plain, ...(target.allowAnonymous ? [] : keyForms(target)), plugin];
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

export const claudeCode = defineClient({
  id: 'claude-code',
  title: 'Claude Code',
  forms,
  note: pluginNote,
  local: {
    binaries: ['claude'],
    dirs: (machine) => [claudeConfigDirOf(machine)],
    configFile: {
      format: 'json',
      // User scope: every project of this user sees the server. With CLAUDE_CONFIG_DIR set, Claude Code keeps the file there.
      path: (machine) => machine.join(machine.env('CLAUDE_CONFIG_DIR') ?? machine.home, '.claude.json'),
      container: 'mcpServers',
      entry: claudeCodeEntry,
    },
    headerConflict: 'stored-sign-in',
  },
});
