/**
 * adapter_two: editors with a composer and a diff/apply UI (Cursor-like). The plan is cut
 * into editor tasks: one composer session (`composer`), one task per step in sequence
 * (`direct`), or one task per step with each parallel group started together (`parallel`).
 * How edits are shown and applied follows the manifest's show_diff and auto_apply.
 */
import type { StepAction, WorkflowManifest } from '../../manifest/types.js';
import { closingInstructions, codeList, commonStepLines, renderDocument } from './markdown.js';
import { baseStepStructured, baseStructured, planSchema, stepSchema } from './plan.js';
import { arr, bool, int, obj, str, type Schema } from './schemas.js';
import type { AdapterRenderer, PlanInput, PlanStep, RenderedPlan } from './types.js';

type Mode = 'composer' | 'direct' | 'parallel';

interface Settings {
  mode: Mode;
  useComposer: boolean;
  showDiff: boolean;
  autoApply: boolean;
}

interface EditorTask {
  task: number;
  steps: string[];
  startsAfter: number[];
}

/** Actions whose result is file edits, which the editor's diff/apply settings govern. */
const EDITING_ACTIONS: ReadonlySet<StepAction> = new Set<StepAction>([
  'code_agent',
  'test_agent',
  'docs_agent',
  'edit_file',
  'edit_files',
  'generate_code',
  'generate_tests',
  'file_write',
]);

function settingsOf(manifest: WorkflowManifest): Settings {
  const section = manifest.adapters?.adapter_two;
  const config = section?.config ?? {};
  const mode = section?.mode ?? 'composer';
  return {
    mode,
    // `direct` means edits straight from the chat, so the composer is off whatever the config says.
    useComposer: mode === 'direct' ? false : (config.use_composer ?? true),
    // Reviewing before applying is the safe default for an editor that writes to the user's files.
    showDiff: config.show_diff ?? true,
    autoApply: config.auto_apply ?? false,
  };
}

function tasksOf(settings: Settings, input: PlanInput): EditorTask[] {
  const ordered = input.steps.map((s) => s.id);
  if (settings.mode === 'composer') return [{ task: 1, steps: ordered, startsAfter: [] }];
  if (settings.mode === 'direct') {
    return ordered.map((id, i) => ({ task: i + 1, steps: [id], startsAfter: i === 0 ? [] : [i] }));
  }
  const tasks: EditorTask[] = [];
  let previous: number[] = [];
  for (const level of input.base.levels) {
    const current: number[] = [];
    for (const id of level) {
      const task = tasks.length + 1;
      tasks.push({ task, steps: [id], startsAfter: [...previous] });
      current.push(task);
    }
    previous = current;
  }
  return tasks;
}

function editLines(settings: Settings): string[] {
  return [
    settings.showDiff ? 'Show the diff before applying any edit.' : 'Edits need no diff preview before they are applied.',
    settings.autoApply
      ? 'Apply edits automatically as soon as they are ready; do not wait for approval.'
      : "Do not apply edits automatically: wait for the user's approval before applying them.",
  ];
}

function surface(settings: Settings): string {
  return settings.useComposer ? 'composer' : 'chat';
}

function instructionsOf(settings: Settings, input: PlanInput): string[] {
  const lines: string[] = [];
  if (settings.mode === 'composer') {
    lines.push(
      settings.useComposer
        ? 'Open the composer and carry out the whole workflow in one composer session, step by step in the order listed.'
        : 'Do not use the composer; carry out the whole workflow from the chat, step by step in the order listed.',
      'Steps of one group do not depend on each other; their order inside the group is free.',
    );
  } else if (settings.mode === 'direct') {
    lines.push(
      "Work step by step without the composer: make one step's edits, settle them, then move to the next step in the order listed.",
      'Steps of one group do not depend on each other; their order inside the group is free.',
    );
  } else {
    lines.push(
      `Run each step as its own ${surface(settings)} task. Start all tasks of a group together, wait until every one has finished and its edits are settled, then start the next group.`,
      "Keep each task to its own step's files so tasks running together do not make conflicting edits; when two must change the same file, run them one after the other.",
    );
  }
  lines.push(...editLines(settings));
  lines.push("Carry each step's result into the steps that depend on it.");
  return [...lines, ...closingInstructions(input.steps)];
}

function stepLines(settings: Settings, taskOf: Map<string, number>, step: PlanStep): string[] {
  const lines = commonStepLines(step);
  if (settings.mode !== 'composer') lines.push(`- ${surface(settings)} task: ${taskOf.get(step.id) ?? '?'}`);
  if (EDITING_ACTIONS.has(step.action)) {
    const diff = settings.showDiff ? 'show the diff, then ' : '';
    const apply = settings.autoApply ? 'apply automatically' : 'apply after the user approves';
    lines.push(`- edits files: ${diff}${apply}`);
  }
  return lines;
}

function groupLines(settings: Settings, tasks: readonly EditorTask[], levels: readonly string[][], index: number): string[] {
  if (settings.mode !== 'parallel') return [];
  const ids = new Set(levels[index] ?? []);
  const mine = tasks.filter((t) => t.steps.some((id) => ids.has(id)));
  const after = mine[0]?.startsAfter ?? [];
  const label = surface(settings) === 'composer' ? 'Composer' : 'Chat';
  const several = mine.length > 1;
  const tasksText = `${label} task${several ? 's' : ''} ${mine.map((t) => t.task).join(', ')}`;
  const start = several ? 'start together' : 'starts';
  const when =
    after.length === 0
      ? 'right away'
      : `once task${after.length > 1 ? 's' : ''} ${after.join(', ')} ${after.length > 1 ? 'have' : 'has'} finished`;
  return [`${tasksText} ${start} ${when}: ${codeList(mine.flatMap((t) => t.steps))}.`];
}

function lead(settings: Settings): string {
  const how = settings.autoApply ? 'edits are applied automatically' : 'edits wait for approval';
  const diff = settings.showDiff ? ', after showing the diff' : '';
  if (settings.mode === 'composer') return `the workflow runs as one ${surface(settings)} session; ${how}${diff}.`;
  if (settings.mode === 'direct') return `step-by-step edits, one step at a time; ${how}${diff}.`;
  return `each step is its own ${surface(settings)} task and each parallel group starts together; ${how}${diff}.`;
}

function renderPlan(input: PlanInput): RenderedPlan {
  const settings = settingsOf(input.workflow.manifest);
  const tasks = tasksOf(settings, input);
  const taskOf = new Map<string, number>();
  for (const t of tasks) for (const id of t.steps) taskOf.set(id, t.task);
  const instructions = instructionsOf(settings, input);
  const text = renderDocument(input, {
    lead: lead(settings),
    instructions,
    stepLines: (step) => stepLines(settings, taskOf, step),
    groupLines: (index) => groupLines(settings, tasks, input.base.levels, index),
  });
  const structured: Record<string, unknown> = {
    ...baseStructured(input.base),
    steps: input.steps.map((step) => ({
      ...baseStepStructured(step),
      editorTask: taskOf.get(step.id) ?? 0,
      editsFiles: EDITING_ACTIONS.has(step.action),
    })),
    composer: { useComposer: settings.useComposer, showDiff: settings.showDiff, autoApply: settings.autoApply },
    editorTasks: tasks,
    instructions,
  };
  return { text, structured };
}

function outputSchema(mode: string): Schema {
  const step = stepSchema({
    editorTask: int('The editor task (1-based) this step belongs to.'),
    editsFiles: bool("Whether the step's action changes files, so the diff/apply settings govern it."),
  });
  return planSchema('adapter_two', mode, step, {
    composer: obj({ useComposer: bool(), showDiff: bool(), autoApply: bool() }),
    editorTasks: arr(
      obj({ task: int(), steps: arr(str()), startsAfter: arr(int(), 'Tasks that must finish before this one starts.') }),
      'Editor tasks (composer sessions or chats); tasks with the same startsAfter run together.',
    ),
  });
}

export const adapterTwo: AdapterRenderer = {
  adapter: 'adapter_two',
  modeOf: (manifest) => settingsOf(manifest).mode,
  hasStepTools: () => false,
  summary: (_mode, manifest) => lead(settingsOf(manifest)),
  outputSchema,
  renderPlan,
};
