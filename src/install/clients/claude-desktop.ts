/**
 * Claude Desktop and claude.ai: a custom connector (a URL and OAuth), added by hand. On a machine it
 * has no file to write: the command-line tool prints the steps.
 */
import { defineClient, form, plainAuth, plainLabel } from './shared.js';

export const claudeDesktop = defineClient({
  id: 'claude-desktop',
  title: 'Claude Desktop and claude.ai',
  forms: (target) => [
    form({
      auth: plainAuth(target),
      kind: 'steps',
      label: plainLabel(target, 'Add as a custom connector'),
      steps: [
        'Open Settings → Connectors.',
        'Choose "Add custom connector".',
        `Name it ${target.name} and paste the URL ${target.endpoint}`,
        target.allowAnonymous ? 'Choose Add.' : 'Choose Add, then Connect, and sign in to this service when asked.',
      ],
    }),
  ],
  note: () => 'Custom connectors take a URL and sign in with OAuth; they send no header of your choosing.',
  local: { binaries: ['claude-desktop'], dirs: (machine) => [machine.join(machine.appData, 'Claude')], configFile: null },
});
