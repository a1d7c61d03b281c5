/**
 * Gemini CLI: `gemini mcp add`, `mcpServers` of ~/.gemini/settings.json (also on a machine), and a
 * Gemini CLI extension that asks for the key once.
 */
import {
  defineClient,
  form,
  json,
  keyAuth,
  keyEnvVarOf,
  keyOf,
  plainAndKeyedForms,
  serverEntry,
  serverNameOf,
  shellQuote,
  shownPathOf,
  type InstallForm,
  type InstallTarget,
  type JsonConfigFile,
} from './shared.js';

/** Gemini's settings.json entry: `httpUrl` is Streamable HTTP (`url` would mean SSE). */
function geminiSettingsEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return serverEntry(target, withKey, { httpUrl: target.endpoint });
}

const configFile: JsonConfigFile = {
  format: 'json',
  path: (machine) => machine.join(machine.home, '.gemini', 'settings.json'),
  container: 'mcpServers',
  entry: geminiSettingsEntry,
};

/** A Gemini CLI extension: name, version, the server, and the key as a sensitive setting read from the environment. */
function geminiExtension(target: InstallTarget, version: string): Record<string, unknown> {
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

/** The two file forms: the entry in settings.json, and the extension. */
function fileForms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const path = shownPathOf(configFile);
  const settings = form({
    auth: keyAuth(target),
    kind: 'file',
    label: 'Or write it in settings.json',
    steps: [`Open ${path} (or .gemini/settings.json in a project).`, 'Merge this entry under "mcpServers".'],
    file: { path, content: json({ [configFile.container]: { [name]: geminiSettingsEntry(target, !target.allowAnonymous) } }) },
    usesApiKey: !target.allowAnonymous,
  });
  const extension = form({
    auth: keyAuth(target),
    kind: 'file',
    label: 'Or as a Gemini CLI extension (gemini-extension.json)',
    steps: [
      `Make the folder ~/.gemini/extensions/${name}/ and write this file in it.`,
      ...(target.allowAnonymous ? [] : [`Start Gemini CLI: it asks for the API key once (a sensitive setting, kept out of the file).`]),
    ],
    file: { path: `~/.gemini/extensions/${name}/gemini-extension.json`, content: json(geminiExtension(target, '1.0.0')) },
    usesApiKey: false,
  });
  return [settings, extension];
}

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const commands = plainAndKeyedForms(
    target,
    'command',
    { what: 'Add to Gemini CLI', commands: [`gemini mcp add -t http ${shellQuote(name)} ${shellQuote(target.endpoint)}`] },
    () => ({
      label: 'Add to Gemini CLI with an API key',
      commands: [
        `gemini mcp add -t http -H ${shellQuote(`Authorization: Bearer ${keyOf(target)}`)} ${shellQuote(name)} ${shellQuote(target.endpoint)}`,
      ],
    }),
  );
  return [...commands, ...fileForms(target)];
}

export const geminiCli = defineClient({
  id: 'gemini-cli',
  title: 'Gemini CLI',
  forms,
  note: (target) => (target.allowAnonymous ? null : 'Gemini CLI signs in to a server with OAuth from its interactive screen (/mcp auth).'),
  local: { binaries: ['gemini'], dirs: (machine) => [machine.join(machine.home, '.gemini')], configFile },
});
