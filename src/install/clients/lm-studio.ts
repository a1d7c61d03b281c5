/** LM Studio: its `add_mcp` install link, the entry in Cursor's shape. */
import { base64, bearer, defineClient, form, plainAuth, plainLabel, serverNameOf, type InstallForm, type InstallTarget } from './shared.js';

function lmStudioDeeplink(name: string, entry: Record<string, unknown>): string {
  return `lmstudio://add_mcp?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`;
}

function forms(target: InstallTarget): InstallForm[] {
  const name = serverNameOf(target);
  const result = [
    form({
      auth: plainAuth(target),
      kind: 'deeplink',
      label: plainLabel(target, 'Add to LM Studio'),
      url: lmStudioDeeplink(name, { url: target.endpoint }),
    }),
  ];
  if (!target.allowAnonymous) {
    result.push(
      form({
        auth: 'api_key',
        kind: 'deeplink',
        label: 'Add to LM Studio with an API key',
        url: lmStudioDeeplink(name, { url: target.endpoint, headers: bearer(target) }),
        usesApiKey: true,
      }),
    );
  }
  return result;
}

export const lmStudio = defineClient({ id: 'lm-studio', title: 'LM Studio', forms, note: () => null, local: null });
