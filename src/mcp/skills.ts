/**
 * Each workflow a deployment offers, served as an Agent Skill through the SDK's skills extension
 * (`io.modelcontextprotocol/skills`): `skill://<name>/SKILL.md`, rendered for the request's adapter
 * (see render/skill.ts). The catalog is built from the request's own connection, so nothing is
 * kept between requests and a skill of a workflow the deployment does not offer is never served.
 */
import { skillEntry, SkillsExtension, type Skill, type SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { Resource, ServerContext } from '@modelcontextprotocol/server';
import { mapInSlices, renderSkill, type RenderableWorkflow } from './render/index.js';
import type { Adapter } from '../manifest/types.js';

const SKILL_BASE_URI = 'skill://';
const SKILL_MIME_TYPE = 'text/markdown';

export interface ServedSkill {
  entry: Skill;
  text: string;
  title: string;
}

/** How the skills extension reaches a request's workflows and adapter. */
export interface SkillScope {
  adapter: Adapter;
  workflows(): Promise<RenderableWorkflow[]>;
}

async function servedSkills(scope: SkillScope): Promise<ServedSkill[]> {
  const skills = await mapInSlices(await scope.workflows(), (w) => renderSkill(w, scope.adapter));
  return Promise.all(
    skills.map(async (skill) => {
      const entry = await skillEntry(skill.name, { 'SKILL.md': skill.text }, { baseUri: SKILL_BASE_URI });
      return { entry, text: skill.text, title: skill.title };
    }),
  );
}

/** One extension serves every server; `scopeOf` finds the request's connection in its context. */
export function createSkillsExtension(
  scopeOf: (ctx: ServerContext) => SkillScope & { skills?: Promise<ServedSkill[]> },
  onWarning: (warning: { path: string; message: string }) => void,
): SkillsExtension {
  const skillsOf = (ctx: ServerContext) => {
    const scope = scopeOf(ctx);
    return (scope.skills ??= servedSkills(scope));
  };
  const find = async (uri: string, ctx: ServerContext) => (await skillsOf(ctx)).find((s) => s.entry.uri === uri);
  const source: SkillSource = {
    async list(_params, ctx) {
      return { skills: (await skillsOf(ctx)).map((s) => s.entry) };
    },
    async get(uri, ctx) {
      return (await find(uri, ctx))?.entry;
    },
    async read(uri, ctx) {
      const found = await find(uri, ctx);
      return found ? { text: found.text, mimeType: SKILL_MIME_TYPE } : undefined;
    },
    async listResources(ctx): Promise<Resource[]> {
      return (await skillsOf(ctx)).map((s) => ({
        uri: s.entry.uri,
        name: s.entry.frontmatter.name,
        title: s.title,
        description: s.entry.frontmatter.description,
        mimeType: SKILL_MIME_TYPE,
      }));
    },
  };
  return new SkillsExtension({ source, baseUri: SKILL_BASE_URI, onWarning });
}
