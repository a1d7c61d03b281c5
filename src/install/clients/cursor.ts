/**
 * Cursor: its install link (with a web fallback for an entry without a key), and `mcpServers` of
 * ~/.cursor/mcp.json on a machine.
 */
import {
  base64,
  defineClient,
  keyBoundEndpointOf,
  serverNameOf,
  type InstallForm,
  type InstallTarget,
  plainAndKeyedForms,
} from './shared.js';

/**
 * Cursor's install link: `config` is the base64 of the server entry without its name
 * (cursor.com/docs/mcp/install-links). Its web fallback is a page of cursor.com that receives the
 * whole entry, so it is offered only for an entry without a key: a key-bound URL never goes to
 * another site (the custom-scheme link stays on this computer).
 */
function cursorDeeplink(name: string, entry: Record<string, unknown>, carriesKey: boolean): { url: string; webUrl: string | null } {
  const query = `name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`;
  return {
    url: `cursor://anysphere.cursor-deeplink/mcp/install?${query}`,
    webUrl: carriesKey ? null : `https://cursor.com/en/install-mcp?${query}`,
  };
}

/** Cursor's `mcpServers` entry (~/.cursor/mcp.json): with a key, the key-bound URL (Cursor drops a header when OAuth is offered). */
function cursorEntry(target: InstallTarget, withKey: boolean): Record<string, unknown> {
  return { url: withKey ? keyBoundEndpointOf(target) : target.endpoint };
}

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const plain = cursorDeeplink(name, cursorEntry(target, false), false);
  // Cursor drops a configured header when the server offers OAuth: the key goes in the path instead.
  return plainAndKeyedForms(target, 'deeplink', { what: 'Add to Cursor', ...plain }, () => ({
    label: 'Add to Cursor with an API key (key-bound URL)',
    ...cursorDeeplink(name, cursorEntry(target, true), true),
  }));
}

export const cursor = defineClient({
  id: 'cursor',
  title: 'Cursor',
  forms,
  note: (target) =>
    target.allowAnonymous
      ? null
      : 'Cursor ignores a configured Authorization header when the server also offers OAuth, so its API-key form uses the key-bound URL, which never offers OAuth.',
  local: {
    binaries: ['cursor'],
    dirs: (machine) => [machine.join(machine.home, '.cursor')],
    configFile: {
      format: 'json',
      path: (machine) => machine.join(machine.home, '.cursor', 'mcp.json'),
      container: 'mcpServers',
      entry: cursorEntry,
    },
    headerConflict: 'dropped-when-oauth-offered',
  },
});
