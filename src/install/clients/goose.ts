/** Goose: its `extension` install link, which carries no header (a private deployment signs in with OAuth). */
import { defineClient, form, plainAuth, plainLabel, serverNameOf, type InstallTarget } from './shared.js';

function gooseDeeplink(target: InstallTarget): string {
  const params = new URLSearchParams({
    url: target.endpoint,
    type: 'streamable_http',
    id: serverNameOf(target),
    name: target.name,
    description: target.description ?? `Workflows of ${target.name}`,
  });
  return `goose://extension?${params.toString().replace(/\+/g, '%20')}`;
}

export const goose = defineClient({
  id: 'goose',
  title: 'Goose',
  forms: (target) => [
    form({ auth: plainAuth(target), kind: 'deeplink', label: plainLabel(target, 'Add to Goose'), url: gooseDeeplink(target) }),
  ],
  note: () => 'Goose install links carry no header: a private deployment signs in with OAuth.',
  local: null,
});
