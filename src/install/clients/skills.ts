/** Agent Skills: the deployment's workflows as skills, for any agent, with the `skills` CLI. */
import { defineClient, form, installBaseOf, keyAuth, shellQuote, type InstallTarget } from './shared.js';

/** The origin-and-path the `skills` CLI takes: it reads `<this>/.well-known/agent-skills/index.json`. */
export function skillsSourceOf(target: InstallTarget): string {
  return installBaseOf(target, !target.allowAnonymous);
}

export const skills = defineClient({
  id: 'skills',
  title: 'Agent Skills (any agent, with the skills CLI)',
  forms: (target) => [
    form({
      auth: keyAuth(target),
      kind: 'command',
      label: "Install the deployment's workflows as skills",
      commands: [`npx skills add ${shellQuote(skillsSourceOf(target))}`],
      usesApiKey: !target.allowAnonymous,
    }),
  ],
  note: () =>
    'Skills are instructions only: connect the endpoint too (another client above) for the tools. The skills CLI needs Node.js 22 or later (on Node 20 it stops with an error about fs/promises glob).',
  local: null,
});
