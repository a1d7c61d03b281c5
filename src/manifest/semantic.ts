/**
 * Checks a schema cannot express: unique ids, dependencies that exist and form no
 * cycle, adapter settings keyed by real steps. The input may have failed the schema,
 * so every part is read defensively and skipped when it cannot be read.
 */
import { STEP_MAPS } from './adapter-list.js';
import { findCycle } from './graph.js';
import type { ManifestError } from './types.js';
import { isRecord, place, pointer, suggestion, where } from './messages.js';

interface ReadableStep {
  index: number;
  id: string;
  /** Only the string entries, with their index in depends_on. */
  deps: Array<{ index: number; id: string }>;
}

/** Enough to report every distinct cycle of a tangled graph without flooding the answer. */
const MAX_CYCLES = 10;

function readSteps(input: Record<string, unknown>): { steps: ReadableStep[]; allIdsReadable: boolean } {
  const raw = Array.isArray(input.steps) ? input.steps : [];
  const steps: ReadableStep[] = [];
  let allIdsReadable = true;
  raw.forEach((step: unknown, index) => {
    if (!isRecord(step) || typeof step.id !== 'string') {
      allIdsReadable = false;
      return;
    }
    const deps: ReadableStep['deps'] = [];
    if (Array.isArray(step.depends_on)) {
      step.depends_on.forEach((d: unknown, i) => {
        if (typeof d === 'string') deps.push({ index: i, id: d });
      });
    }
    steps.push({ index, id: step.id, deps });
  });
  return { steps, allIdsReadable };
}

function duplicateIds(steps: ReadableStep[], input: unknown): ManifestError[] {
  const firstIndex = new Map<string, number>();
  const errors: ManifestError[] = [];
  for (const s of steps) {
    const first = firstIndex.get(s.id);
    if (first === undefined) {
      firstIndex.set(s.id, s.index);
      continue;
    }
    errors.push({
      path: pointer('steps', s.index, 'id'),
      code: 'duplicate_step_id',
      message: `${where(pointer('steps', s.index, 'id'), input)} '${s.id}' is already the id of steps[${first}]; step ids must be unique`,
    });
  }
  return errors;
}

function dependencyErrors(steps: ReadableStep[], checkMissing: boolean, input: unknown): ManifestError[] {
  const ids = [...new Set(steps.map((s) => s.id))];
  const known = new Set(ids);
  const errors: ManifestError[] = [];
  for (const s of steps) {
    for (const d of s.deps) {
      const path = pointer('steps', s.index, 'depends_on', d.index);
      if (d.id === s.id) {
        // The shortest cycle there is (spec 2.8: a cycle makes validation fail), reported with its own message.
        errors.push({
          path,
          code: 'circular_dependency',
          message: `circular dependency: step '${s.id}' depends on itself (${where(path, input)})`,
        });
      } else if (checkMissing && !known.has(d.id)) {
        errors.push({
          path,
          code: 'unknown_dependency',
          // Never the step itself: a step cannot depend on itself, so that suggestion would be wrong.
          message: `${place(path, input)} names '${d.id}', which is not a step of this manifest${suggestion(
            d.id,
            ids.filter((id) => id !== s.id),
          )}`,
        });
      }
    }
  }
  return errors;
}

/**
 * Reports each cycle once: after one is found its closing edge is dropped, so the next
 * search finds a different cycle rather than the same one again.
 */
function cycleErrors(steps: ReadableStep[]): ManifestError[] {
  const firstById = new Map<string, ReadableStep>();
  for (const s of steps) if (!firstById.has(s.id)) firstById.set(s.id, s);
  const edges = new Map([...firstById].map(([id, s]) => [id, s.deps.map((d) => d.id)] as const));
  const errors: ManifestError[] = [];

  for (let n = 0; n < MAX_CYCLES; n++) {
    const cycle = findCycle([...edges].map(([id, depends_on]) => ({ id, depends_on })));
    if (!cycle || cycle.length === 0) break;
    // findCycle lists the cycle so that each step depends on the next; the last one closes it.
    const from = cycle[cycle.length - 1]!;
    const to = cycle[0]!;
    const owner = firstById.get(from)!;
    const dep = owner.deps.find((d) => d.id === to)!;
    errors.push({
      path: pointer('steps', owner.index, 'depends_on', dep.index),
      code: 'circular_dependency',
      message: `circular dependency: ${[...cycle, to].join(' → ')} (each step depends on the next)`,
    });
    edges.set(
      from,
      edges.get(from)!.filter((d) => d !== to),
    );
  }
  return errors;
}

function stepReferenceErrors(input: Record<string, unknown>, ids: string[]): ManifestError[] {
  const known = new Set(ids);
  const errors: ManifestError[] = [];
  const adapters = input.adapters;
  if (!isRecord(adapters)) return errors;
  for (const [adapter, key] of STEP_MAPS) {
    const settings = adapters[adapter];
    const config = isRecord(settings) ? settings.config : undefined;
    const map = isRecord(config) ? config[key] : undefined;
    if (!isRecord(map)) continue;
    for (const stepId of Object.keys(map)) {
      if (known.has(stepId)) continue;
      const path = pointer('adapters', adapter, 'config', key, stepId);
      errors.push({
        path,
        code: 'unknown_step_reference',
        message: `adapters.${adapter}.config.${key} has an entry for '${stepId}', which is not a step of this manifest${suggestion(stepId, ids)}`,
      });
    }
  }
  return errors;
}

export function semanticErrors(input: Record<string, unknown>): ManifestError[] {
  const { steps, allIdsReadable } = readSteps(input);
  const ids = steps.map((s) => s.id);
  // A step whose id cannot be read may be the one a reference means; calling the
  // reference unknown would only add noise to the error already given for that id.
  return [
    ...duplicateIds(steps, input),
    ...dependencyErrors(steps, allIdsReadable, input),
    ...cycleErrors(steps),
    ...(allIdsReadable ? stepReferenceErrors(input, ids) : []),
  ];
}
