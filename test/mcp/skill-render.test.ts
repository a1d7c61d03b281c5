import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AppError } from '../../src/errors.js';
import { ADAPTERS, type Adapter, type WorkflowManifest } from '../../src/manifest/types.js';
import { callTool, renderCatalog, renderSkill, skillName, type RenderableWorkflow } from '../../src/mcp/render/index.js';
import { MAX_SKILL_DESCRIPTION_LENGTH, SKILL_NAME_PATTERN, skillDescription } from '../../src/mcp/render/skill.js';

const manifest: WorkflowManifest = {
  manifest_version: '1.0',
  name: 'feature-pipeline',
  intent: 'Implement a feature with tests, then review it.',
  context: { repo: 'acme/shop', language: 'typescript' },
  steps: [
    { id: 'plan', name: 'Plan the change', action: 'planning_agent', parameters: { depth: 'detailed' } },
    { id: 'implement', name: 'Implement', action: 'code_agent', depends_on: ['plan'], retry: { max_attempts: 3, backoff: 'exponential' } },
    { id: 'write_tests', name: 'Write tests', action: 'test_agent', depends_on: ['plan'] },
    { id: 'review', name: 'Review', action: 'review_agent', depends_on: ['implement', 'write_tests'], condition: 'tests pass' },
  ],
  adapters: {
    adapter_one: { mode: 'sub_agent', config: { max_parallel_agents: 1 } },
    adapter_two: { mode: 'composer', config: {} },
    adapter_three: { mode: 'function_calling', config: { functions_per_step: { implement: ['edit_file'] } } },
  },
} as WorkflowManifest;

const workflow: RenderableWorkflow = {
  workflowId: 'wf_123',
  name: 'Feature pipeline',
  description: 'Builds a feature: plan, code and tests, review.',
  version: '1.2.0',
  manifest,
};

function frontMatter(text: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(match).not.toBeNull();
  return parseYaml(match![1]!) as Record<string, unknown>;
}

describe('skill names', () => {
  it('slugs the workflow name and adds a hash of the id', () => {
    const name = skillName('Feature pipeline', 'wf_123');
    expect(name).toMatch(/^feature-pipeline-[0-9a-f]{8}$/);
    expect(skillName('Feature pipeline', 'wf_123')).toBe(name);
    expect(skillName('Feature pipeline', 'wf_124')).not.toBe(name);
  });

  it('folds accents and drops other unicode, collapsing separators', () => {
    expect(skillName('Révision   de  Café__API', 'x')).toMatch(/^revision-de-cafe-api-[0-9a-f]{8}$/);
    expect(skillName('  --Émoji 🚀 rocket--  ', 'x')).toMatch(/^emoji-rocket-[0-9a-f]{8}$/);
  });

  it('falls back to "workflow" when nothing survives slugging', () => {
    for (const empty of ['', '   ', '🚀🚀', '日本語のワークフロー', '---']) {
      const name = skillName(empty, 'wf_1');
      expect(name).toMatch(/^workflow-[0-9a-f]{8}$/);
      expect(name).toMatch(SKILL_NAME_PATTERN);
    }
  });

  it('cuts long names to 64 characters at a word boundary', () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const name = skillName(long, 'wf_1');
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(SKILL_NAME_PATTERN);
    expect(name).toMatch(/^word0-word1-.*word\d+-[0-9a-f]{8}$/);
    const oneWord = skillName('a'.repeat(200), 'wf_1');
    expect(oneWord).toMatch(/^a{55}-[0-9a-f]{8}$/);
  });
});

describe('skill descriptions', () => {
  it('uses the description, else the intent, within 1024 characters', () => {
    expect(skillDescription(workflow)).toBe('Builds a feature: plan, code and tests, review. (workflow Feature pipeline, version 1.2.0)');
    expect(skillDescription({ ...workflow, description: '  ' })).toMatch(/^Implement a feature with tests, then review it\./);
    const long = skillDescription({ ...workflow, description: 'é'.repeat(3000) });
    expect(Array.from(long).length).toBe(MAX_SKILL_DESCRIPTION_LENGTH);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('SKILL.md per adapter', () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter}: front matter, then the plan the tool returns`, () => {
      const skill = renderSkill(workflow, adapter);
      const meta = frontMatter(skill.text);
      expect(meta).toEqual({ name: skill.name, description: skill.description });
      expect(skill.name).toMatch(SKILL_NAME_PATTERN);
      const catalog = renderCatalog([workflow], adapter);
      const main = catalog.tools.find((t) => t.stepId === null)!;
      const plan = callTool(catalog, [workflow], main.name, {}).content[0]!.text;
      expect(skill.text.endsWith(plan)).toBe(true);
      expect(skill.text).toContain(`Adapter \`${adapter}\``);
      // Dependency order: plan before implement and write_tests, those before review.
      const at = (id: string) => skill.text.indexOf(`\`${id}\` (`);
      expect(at('plan')).toBeLessThan(at('implement'));
      expect(at('implement')).toBeLessThan(at('review'));
      expect(skill.text).toContain('- retry: up to 3 attempts');
      expect(skill.text).toContain('- condition: run only if `tests pass`');
      expect(skill.text).toContain('- parameters: `{"depth":"detailed"}`');
      expect(skill.text).toContain('- depends on: `implement`, `write_tests`');
    });
  }

  it('shows each adapter its own settings', () => {
    expect(renderSkill(workflow, 'adapter_one').text).toContain('Never run more than 1 sub-agent at once');
    expect(renderSkill(workflow, 'adapter_three').text).toContain('- functions: `edit_file`');
    expect(renderSkill(workflow, 'adapter_two').text).toContain('mode `composer`');
  });

  it('keeps front matter valid when the description holds YAML syntax', () => {
    const tricky = { ...workflow, description: 'key: value # not a comment\n---\n- "quoted" & *alias' };
    const skill = renderSkill(tricky, 'adapter_three');
    expect(frontMatter(skill.text).description).toBe(skill.description);
    expect(skill.description).toContain('key: value # not a comment --- - "quoted" & *alias');
  });

  it('rejects an unknown adapter', () => {
    expect(() => renderSkill(workflow, 'adapter_nine' as Adapter)).toThrow(AppError);
    expect(() => renderSkill(workflow, 'adapter_nine' as Adapter)).toThrow(
      `adapter must be one of ${ADAPTERS.map((a) => `'${a}'`).join(', ')}; got 'adapter_nine'`,
    );
  });
});
