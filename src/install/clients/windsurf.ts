/** Windsurf: no install link; the entry goes in `mcpServers` of ~/.codeium/windsurf/mcp_config.json. */
import {
  defineClient,
  json,
  serverNameOf,
  shownPathOf,
  type InstallForm,
  type InstallTarget,
  type JsonConfigFile,
  serverEntry,
  plainAndKeyedForms,
} from './shared.js';

/** Windsurf's server entry: `serverUrl`, and with a key the Authorization header. */
function windsurfEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return serverEntry(target, withKey, { serverUrl: target.endpoint });
}

const configFile: JsonConfigFile = {
  format: 'json',
  path: (machine) => machine.join(machine.home, '.codeium', 'windsurf', 'mcp_config.json'),
  container: 'mcpServers',
  entry: windsurfEntry,
};

function forms(target: InstallTarget): InstallForm[] {
  const path = shownPathOf(configFile);
  const steps = [
    `In Windsurf, open Settings → Cascade → MCP servers → View raw config (the file ${path}).`,
    'Merge this entry under "mcpServers" and save.',
    'Press Refresh in the MCP servers panel.',
  ];
  const fileOf = (withKey: boolean) => ({
    path,
    content: json({ [configFile.container]: { [serverNameOf(target)]: windsurfEntry(target, withKey) } }),
  });
  return plainAndKeyedForms(target, 'file', { what: 'Add to Windsurf', steps, file: fileOf(false) }, () => ({
    label: 'Add to Windsurf with an API key',
    steps,
    file: fileOf(true),
  }));
}

export const windsurf = defineClient({
  id: 'windsurf',
  title: 'Windsurf',
  forms,
  note: () => 'Windsurf has no install link: the entry goes in its MCP config file.',
  local: { binaries: ['windsurf'], dirs: (machine) => [machine.join(machine.home, '.codeium', 'windsurf')], configFile },
});
