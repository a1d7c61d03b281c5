/**
 * Codex CLI: `codex mcp add` (the key read from an environment variable: Codex has no header flag),
 * and the table `[mcp_servers.<name>]` of ~/.codex/config.toml ($CODEX_HOME) on a machine.
 */
import {
  defineClient,
  form,
  keyAuth,
  keyBoundEndpointOf,
  keyEnvVarOf,
  keyOf,
  plainAndKeyedForms,
  serverNameOf,
  shellQuote,
  shownPathOf,
  type InstallForm,
  type InstallTarget,
  type Machine,
  type TomlConfigFile,
} from './shared.js';

function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * Codex's `[mcp_servers.<name>]` table. The credential: `env`, the key read from the environment
 * variable keyEnvVarOf names (the default for a private deployment); `key-bound`, the key-bound URL
 * (nothing to set in the environment); `none`, the endpoint alone (anonymous, or `codex mcp login`).
 */
function codexConfigToml(target: InstallTarget, credential: 'env' | 'key-bound' | 'none'): string {
  const url = credential === 'key-bound' ? keyBoundEndpointOf(target) : target.endpoint;
  const lines = [`[mcp_servers.${serverNameOf(target)}]`, `url = ${tomlString(url)}`];
  if (credential === 'env') lines.push(`bearer_token_env_var = ${tomlString(keyEnvVarOf(target))}`);
  return `${lines.join('\n')}\n`;
}

function codexHomeOf(machine: Machine): string {
  return machine.env('CODEX_HOME') ?? machine.join(machine.home, '.codex');
}

const configFile: TomlConfigFile = {
  format: 'toml',
  path: (machine) => machine.join(codexHomeOf(machine), 'config.toml'),
  container: 'mcp_servers',
  // Written by a program, the key goes in the key-bound URL: a file cannot set Codex's environment variable.
  table: (target, withKey) => codexConfigToml(target, withKey ? 'key-bound' : 'none'),
};

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const envVar = keyEnvVarOf(target);
  const result = plainAndKeyedForms(
    target,
    'command',
    {
      what: 'Add to Codex',
      commands: [
        `codex mcp add ${shellQuote(name)} --url ${shellQuote(target.endpoint)}`,
        ...(target.allowAnonymous ? [] : [`codex mcp login ${shellQuote(name)}`]),
      ],
    },
    () => ({
      label: `Add to Codex with an API key read from ${envVar} (Codex has no header flag)`,
      commands: [
        `export ${envVar}=${shellQuote(keyOf(target))}`,
        `codex mcp add ${shellQuote(name)} --url ${shellQuote(target.endpoint)} --bearer-token-env-var ${envVar}`,
      ],
    }),
  );
  const path = shownPathOf(configFile);
  result.push(
    form({
      auth: keyAuth(target),
      kind: 'file',
      label: 'Or write it in config.toml',
      steps: [
        `Open ${path}.`,
        'Add this table.',
        ...(target.allowAnonymous ? [] : [`Set ${envVar} to your API key in the environment Codex starts from.`]),
      ],
      file: { path, content: codexConfigToml(target, target.allowAnonymous ? 'none' : 'env') },
      usesApiKey: false,
    }),
  );
  return result;
}

export const codex = defineClient({
  id: 'codex',
  title: 'Codex CLI',
  forms,
  note: () => null,
  local: { binaries: ['codex'], dirs: (machine) => [codexHomeOf(machine)], configFile },
});
