/**
 * A workflow as an Agent Skill: a `SKILL.md` whose YAML front matter carries a valid `name` and
 * `description`, followed by the same plan the workflow's tool returns for the adapter (with no
 * task: the user's request is the task), written as instructions the agent follows.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { AppError } from '../../errors.js';
import { ADAPTERS, DEFAULT_ADAPTER, isAdapter, type Adapter } from '../../manifest/adapter-list.js';
import { oneLine } from './markdown.js';
import { buildPlanInput } from './plan.js';
import { rendererFor } from './renderers.js';
import type { RenderableWorkflow } from './types.js';
import { authorTextClosing, authorTextOpening, inertDocument, inertWorkflow, namingName, provenanceLine } from './untrusted.js';
import { asciiSlug } from '../../text.js';

/** Agent Skills limits: `name` 1-64 lowercase letters, digits and single hyphens; `description` 1-1024 characters. */
const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const HASH_LENGTH = 8;
const FALLBACK_SLUG = 'workflow';

/**
 * `<slug>-<hash>`: the slug of the workflow name (cut at a word boundary when long, `workflow`
 * when nothing is left) and 8 hex digits of the workflow id's hash, so two workflows of the same
 * name served side by side still get two skills, and a renamed workflow keeps its suffix.
 */
export function skillName(name: string, workflowId: string): string {
  const hash = createHash('sha256').update(workflowId, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  const budget = MAX_SKILL_NAME_LENGTH - HASH_LENGTH - 1;
  let slug = asciiSlug(name);
  if (slug.length > budget) {
    const cut = slug.slice(0, budget);
    const boundary = cut.lastIndexOf('-');
    slug = (boundary > 0 && slug[budget] !== '-' ? cut.slice(0, boundary) : cut).replace(/-+$/, '');
  }
  return `${slug || FALLBACK_SLUG}-${hash}`;
}

/**
 * The workflow's description, else its intent, on one line, with who wrote it, cut to the limit on
 * a code-point boundary (the author and digest first, so a long description cannot push them out).
 */
export function skillDescription(workflow: RenderableWorkflow): string {
  const own = oneLine(workflow.description) || oneLine(workflow.manifest.intent) || oneLine(workflow.name) || 'A workflow.';
  const provenance = provenanceLine(workflow);
  const full = `${provenance !== null ? `${provenance} ` : ''}${own} (workflow ${oneLine(workflow.name) || workflow.workflowId}, version ${oneLine(workflow.version)})`;
  const points = Array.from(full);
  if (points.length <= MAX_SKILL_DESCRIPTION_LENGTH) return full;
  return `${points
    .slice(0, MAX_SKILL_DESCRIPTION_LENGTH - 1)
    .join('')
    .trimEnd()}…`;
}

export function parseSkillAdapter(value: unknown): Adapter {
  if (value === undefined || value === null) return DEFAULT_ADAPTER;
  if (isAdapter(value)) return value;
  const got = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? typeof value);
  throw new AppError('VALIDATION_ERROR', `adapter must be one of ${ADAPTERS.map((a) => `'${a}'`).join(', ')}; got ${got}`, {
    field: 'adapter',
    allowed: [...ADAPTERS],
  });
}

export interface RenderedSkill {
  name: string;
  /** What a resource list shows for it: the workflow's name (inert) and version. */
  title: string;
  description: string;
  /** The whole SKILL.md: front matter, then the plan. */
  text: string;
}

/**
 * The SKILL.md of a workflow, rendered from its inert copy (untrusted.ts) and inert as a whole: the
 * same file is served by the skills index, the plugin archive, the manifest export and the MCP
 * `skill://` resources. Deterministic, since the skills index publishes its digest.
 */
export function renderSkill(source: RenderableWorkflow, adapter: Adapter): RenderedSkill {
  const chosen = parseSkillAdapter(adapter);
  const renderer = rendererFor(chosen);
  const workflow = inertWorkflow(source);
  const name = skillName(namingName(workflow), workflow.workflowId);
  const description = inertDocument(skillDescription(workflow));
  const input = buildPlanInput(workflow, chosen, renderer.modeOf(workflow.manifest), {});
  const plan = renderer.renderPlan(input).text;
  // The version's content digest as skill metadata (the Agent Skills `metadata` map): what a reviewer compares.
  const metadata = workflow.provenance ? { metadata: { version: workflow.version, digest: workflow.provenance.digest } } : {};
  const frontMatter = stringify({ name, description, ...metadata }, { lineWidth: 0 });
  const use =
    'Use this skill when the user asks for this workflow or for work that matches its intent. The user\'s request is the task: follow the "How to run" list and take the steps in the dependency order given below.';
  const body = [use, '', ...authorTextOpening(workflow), plan.trimEnd(), ...authorTextClosing(workflow)].join('\n');
  const title = inertDocument(`${workflow.name} (skill, version ${workflow.version})`);
  return { name, title, description, text: inertDocument(`---\n${frontMatter}---\n\n${body}\n`) };
}
