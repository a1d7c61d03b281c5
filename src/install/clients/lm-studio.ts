/** LM Studio: its `add_mcp` install link, the entry in Cursor's shape. */
import { base64, defineClient, plainAndKeyedForms, serverEntry, serverNameOf, type InstallForm, type InstallTarget } from './shared.js';

function lmStudioDeeplink(name: string, entry: Record<string, unknown>): string {
  return `lmstudio://add_mcp?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`;
}

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  return plainAndKeyedForms(
    target,
    'deeplink',
    { what: 'Add to LM Studio', url: lmStudioDeeplink(name, { url: target.endpoint }) },
    () => ({
      label: 'Add to LM Studio with an API key',
      url: lmStudioDeeplink(name, serverEntry(target, true, { url: target.endpoint })),
    }),
  );
}

export const lmStudio = defineClient({ id: 'lm-studio', title: 'LM Studio', forms, note: () => null, local: null });
