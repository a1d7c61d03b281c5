/**
 * The Markdown skeleton every adapter's plan shares. Manifest text is user-written, so
 * anything placed in a heading or an inline span is flattened and fenced to keep one
 * field from breaking the structure the agent relies on.
 */
import { LINE_BREAKS } from '../../text.js';
import type { BasePlan, PlanInput, PlanStep } from './types.js';

/** On one line: every line break (a lone CR, NEL, LS and PS too) and whitespace run as one space. */
export function oneLine(value: string): string {
  return value.replace(LINE_BREAKS, ' ').replace(/\s+/g, ' ').trim();
}

/** An inline code span whose fence is longer than any backtick run inside it. */
export function code(value: string): string {
  const flat = oneLine(value);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

export function codeList(values: readonly string[]): string {
  return values.map(code).join(', ');
}

/** A blockquote, each line of `value` prefixed: every kind of line break splits, so no line escapes the quote. */
function quote(value: string): string[] {
  return value
    .trim()
    .split(LINE_BREAKS)
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`));
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function contextValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function retryText(step: PlanStep): string | null {
  if (!step.retry) return null;
  const parts: string[] = [];
  if (step.retry.maxAttempts !== undefined) parts.push(`up to ${step.retry.maxAttempts} attempts`);
  if (step.retry.backoff !== undefined) parts.push(`backoff ${code(step.retry.backoff)}`);
  return parts.length > 0 ? parts.join(', ') : 'allowed';
}

/** The lines every adapter shows for a step, before its own additions. */
export function commonStepLines(step: PlanStep): string[] {
  const lines = [`- action: ${code(step.action)}`];
  if (step.agent !== undefined) lines.push(`- agent: ${code(step.agent)}`);
  lines.push(`- depends on: ${step.dependsOn.length > 0 ? codeList(step.dependsOn) : 'nothing'}`);
  const params = Object.keys(step.parameters).length > 0 ? code(JSON.stringify(step.parameters)) : 'none';
  lines.push(`- parameters: ${params}`);
  if (step.condition !== undefined) lines.push(`- condition: run only if ${code(step.condition)}; otherwise skip it`);
  const retry = retryText(step);
  if (retry !== null) lines.push(`- retry: ${retry}`);
  return lines;
}

function groupHeading(levels: readonly string[][], index: number): string {
  const ids = levels[index] ?? [];
  const order = index === 0 ? 'first' : `after group ${index}`;
  const who = ids.length === 1 ? `${code(ids[0] ?? '')} runs alone` : `these ${ids.length} steps can run in parallel: ${codeList(ids)}`;
  return `### Group ${index + 1} (${order}): ${who}`;
}

/** One sentence naming every group that can run in parallel, or saying that none can. */
function parallelismSummary(levels: readonly string[][]): string {
  const steps = levels.reduce((n, l) => n + l.length, 0);
  const parallel = levels
    .map((l, i) => ({ l, i }))
    .filter(({ l }) => l.length > 1)
    .map(({ l, i }) => `group ${i + 1} (${codeList(l)})`);
  // A chain has no groups worth the name: it is said as one, not as "3 steps in 3 parallel groups".
  if (parallel.length === 0)
    return steps === 1 ? 'One step.' : `${plural(steps, 'step', 'steps')}, one after another: each depends on the one before it.`;
  const head = `${plural(steps, 'step', 'steps')} in ${plural(levels.length, 'group', 'groups')}`;
  return `${head}. Steps that can run in parallel: ${parallel.join('; ')}.`;
}

export interface DocumentParts {
  /** Says how this adapter and mode will run the workflow. */
  lead: string;
  instructions: readonly string[];
  stepLines(step: PlanStep, number: number): string[];
  groupLines?(index: number): string[];
}

/** Title, lead line, intent, task and context: the top of every plan and step brief. */
export function preamble(base: BasePlan, title: string, lead: string): string[] {
  const out: string[] = [
    `# ${oneLine(title)}`,
    '',
    `Adapter ${code(base.adapter)}, mode ${code(base.mode)}: ${lead}`,
    '',
    '## Intent',
    ...quote(base.intent),
  ];
  if (base.task !== undefined) out.push('', '## Task', ...quote(base.task));
  const context = Object.entries(base.context);
  if (context.length > 0) {
    out.push('', '## Context', ...context.map(([k, v]) => `- ${oneLine(k)}: ${code(contextValue(v))}`));
  }
  return out;
}

export function numbered(lines: readonly string[]): string[] {
  return lines.map((line, i) => `${i + 1}. ${line}`);
}

export function renderDocument(input: PlanInput, parts: DocumentParts): string {
  const { base, steps } = input;
  const out = preamble(base, `Workflow: ${base.name} (version ${base.version})`, parts.lead);
  out.push('', '## How to run', ...numbered(parts.instructions));
  out.push('', '## Steps in dependency order', parallelismSummary(base.levels));
  const byId = new Map(steps.map((s) => [s.id, s] as const));
  let number = 0;
  base.levels.forEach((level, index) => {
    out.push('', groupHeading(base.levels, index));
    const extra = parts.groupLines?.(index) ?? [];
    if (extra.length > 0) out.push(...extra);
    for (const id of level) {
      const step = byId.get(id);
      if (!step) continue;
      number += 1;
      out.push('', `#### Step ${number}: ${code(step.id)} (${oneLine(step.name)})`, ...parts.stepLines(step, number));
    }
  });
  const outputs = base.outputs;
  if (outputs && Object.keys(outputs).length > 0) {
    out.push('', '## Expected output');
    if (outputs.type !== undefined) out.push(`- type: ${code(outputs.type)}`);
    if (outputs.expectedFiles && outputs.expectedFiles.length > 0) out.push(`- files: ${codeList(outputs.expectedFiles)}`);
    if (outputs.schema !== undefined) out.push(`- result shape (JSON Schema): ${code(JSON.stringify(outputs.schema))}`);
  }
  return `${out.join('\n')}\n`;
}

/** Instructions every adapter ends with; conditions and retries only when some step has them. */
export function closingInstructions(steps: readonly PlanStep[]): string[] {
  const lines: string[] = [];
  if (steps.some((s) => s.condition !== undefined)) {
    lines.push("Check a step's condition just before it would start; when the condition is false, skip the step and report it as skipped.");
  }
  if (steps.some((s) => s.retry !== undefined)) {
    lines.push(
      'When a step with a retry setting fails, try it again up to its number of attempts, waiting as its backoff says, before reporting it as failed.',
    );
  }
  lines.push("Finish with a short report: each step's outcome (done, skipped or failed) and what it produced.");
  return lines;
}
