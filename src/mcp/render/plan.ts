/**
 * The adapter-neutral plan: steps in dependency order with their parallel groups, the
 * effective context and the schema of those shared fields. Adapters build on top of it.
 */
import { dependencyLevels } from '../../manifest/graph.js';
import { STEP_ACTIONS, type Adapter, type WorkflowStep } from '../../manifest/types.js';
import { anyObject, arr, constant, int, num, obj, oneOf, str, type Schema } from './schemas.js';
import type { BasePlan, PlanArgs, PlanInput, PlanOutputs, PlanStep, RenderableWorkflow } from './types.js';

/** Agent-style actions: the ones a sub-agent-capable client delegates by default. */
export function isAgentAction(action: string): boolean {
  return action.endsWith('_agent');
}

/**
 * A deep copy of manifest data, which is JSON: objects, arrays and primitives are copied by hand
 * (several times cheaper than `structuredClone`, which each tool call ran once per step);
 * anything else (a `Date`, an object with a `__proto__` key) is left to `structuredClone`.
 */
function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value as unknown[]) out.push(copyJson(item));
    return out as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return structuredClone(value);
    out[key] = copyJson((value as Record<string, unknown>)[key]);
  }
  return out as T;
}

function toPlanStep(step: WorkflowStep, level: readonly string[], levelIndex: number): PlanStep {
  // Built field by field in reading order: optional fields are left out, not set to undefined.
  const out: Partial<PlanStep> = { id: step.id, name: step.name, action: step.action };
  if (step.agent !== undefined) out.agent = step.agent;
  out.dependsOn = [...(step.depends_on ?? [])];
  out.parameters = copyJson(step.parameters ?? {});
  if (step.condition !== undefined) out.condition = step.condition;
  if (step.retry !== undefined) {
    out.retry = {};
    if (step.retry.max_attempts !== undefined) out.retry.maxAttempts = step.retry.max_attempts;
    if (step.retry.backoff !== undefined) out.retry.backoff = step.retry.backoff;
  }
  out.parallelGroup = levelIndex + 1;
  out.parallelWith = level.filter((id) => id !== step.id);
  return out as PlanStep;
}

/**
 * Manifest context first, then the caller's overrides, so key order is stable. Plans copy
 * manifest data deeply: a caller that edits a result must not edit the deployment's manifest.
 */
function mergeContext(workflow: RenderableWorkflow, overrides: Record<string, string> | undefined): Record<string, unknown> {
  return copyJson({ ...(workflow.manifest.context ?? {}), ...(overrides ?? {}) });
}

function planOutputs(workflow: RenderableWorkflow): PlanOutputs | undefined {
  const o = workflow.manifest.outputs;
  if (!o) return undefined;
  const out: PlanOutputs = {};
  if (o.type !== undefined) out.type = o.type;
  if (o.expected_files !== undefined) out.expectedFiles = [...o.expected_files];
  if (o.schema !== undefined) out.schema = copyJson(o.schema);
  return out;
}

export function buildPlanInput(workflow: RenderableWorkflow, adapter: Adapter, mode: string, args: PlanArgs): PlanInput {
  const { manifest } = workflow;
  const levels = dependencyLevels(manifest.steps);
  const byId = new Map(manifest.steps.map((s) => [s.id, s] as const));
  const steps: PlanStep[] = [];
  levels.forEach((level, i) => {
    for (const id of level) {
      const step = byId.get(id);
      if (step) steps.push(toPlanStep(step, level, i));
    }
  });
  const task = args.task?.trim();
  const outputs = planOutputs(workflow);
  const base: BasePlan = {
    workflowId: workflow.workflowId,
    name: workflow.name,
    version: workflow.version,
    adapter,
    mode,
    intent: manifest.intent,
    ...(task ? { task } : {}),
    context: mergeContext(workflow, args.context),
    levels,
    ...(outputs ? { outputs } : {}),
  };
  return { workflow, base, steps, args };
}

/** Base fields first so every `structuredContent` reads the same way at the top. */
export function baseStructured(base: BasePlan): Record<string, unknown> {
  return { ...base };
}

export function baseStepStructured(step: PlanStep): Record<string, unknown> {
  return { ...step };
}

export function basePlanProperties(adapter: Adapter, mode: string): { properties: Record<string, Schema>; required: string[] } {
  const properties: Record<string, Schema> = {
    workflowId: str(),
    name: str(),
    version: str(),
    adapter: constant(adapter),
    mode: constant(mode),
    intent: str(),
    task: str('The task passed by the caller, when there was one.'),
    context: anyObject("Manifest context merged with the caller's overrides."),
    levels: arr(arr(str()), 'Parallel groups in dependency order; steps of one group may run at the same time.'),
    outputs: obj({ type: str(), expectedFiles: arr(str()), schema: anyObject() }, []),
  };
  const required = ['workflowId', 'name', 'version', 'adapter', 'mode', 'intent', 'context', 'levels'];
  return { properties, required };
}

export function baseStepProperties(): { properties: Record<string, Schema>; required: string[] } {
  const properties: Record<string, Schema> = {
    id: str(),
    name: str(),
    action: oneOf(STEP_ACTIONS),
    agent: str(),
    dependsOn: arr(str()),
    parameters: anyObject(),
    condition: str(),
    retry: obj({ maxAttempts: num(), backoff: str() }, []),
    parallelGroup: int('1-based index into levels.'),
    parallelWith: arr(str(), 'Steps of the same group, which may run at the same time as this one.'),
  };
  const required = ['id', 'name', 'action', 'dependsOn', 'parameters', 'parallelGroup', 'parallelWith'];
  return { properties, required };
}

/** Extends the shared step schema with an adapter's own step fields. */
export function stepSchema(extra: Record<string, Schema>, extraRequired: readonly string[] = Object.keys(extra)): Schema {
  const { properties, required } = baseStepProperties();
  return obj({ ...properties, ...extra }, [...required, ...extraRequired]);
}

/** Extends the shared plan schema with an adapter's own fields; `instructions` is common to all. */
export function planSchema(
  adapter: Adapter,
  mode: string,
  step: Schema,
  extra: Record<string, Schema>,
  extraRequired: readonly string[] = Object.keys(extra),
): Schema {
  const { properties, required } = basePlanProperties(adapter, mode);
  return obj({ ...properties, steps: arr(step), ...extra, instructions: arr(str(), 'How to carry out the plan, in order.') }, [
    ...required,
    'steps',
    ...extraRequired,
    'instructions',
  ]);
}
