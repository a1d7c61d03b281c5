/**
 * Dependency graph of a manifest's steps: cycle detection for validation and the
 * execution order (levels of steps that can run in parallel) for rendering.
 */

export interface StepNode {
  id: string;
  depends_on?: string[];
}

/**
 * Finds one dependency cycle and returns the ids on it in dependency order
 * (`['a', 'b', 'a']` style is avoided: each id appears once), or null when there is none.
 * Dependencies that name missing steps are ignored here; they are reported elsewhere.
 */
export function findCycle(steps: readonly StepNode[]): string[] | null {
  const deps = new Map<string, string[]>();
  for (const s of steps)
    if (!deps.has(s.id))
      deps.set(
        s.id,
        (s.depends_on ?? []).filter((d) => d !== s.id),
      );
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];

  const visit = (id: string): string[] | null => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      if (!deps.has(dep)) continue;
      const seen = state.get(dep);
      if (seen === 'visiting') return stack.slice(stack.indexOf(dep));
      if (seen === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };

  for (const id of deps.keys()) {
    if (state.get(id) === undefined) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Groups steps into levels: every step of level n depends only on steps of levels < n,
 * so the steps of one level can run in parallel. Within a level the manifest's order is kept.
 * The input must be acyclic (a validated manifest); a cycle throws.
 */
export function dependencyLevels(steps: readonly StepNode[]): string[][] {
  const level = new Map<string, number>();
  const byId = new Map(steps.map((s) => [s.id, s] as const));
  const resolving = new Set<string>();

  const levelOf = (id: string): number => {
    const known = level.get(id);
    if (known !== undefined) return known;
    if (resolving.has(id)) throw new Error(`dependency cycle through step '${id}'`);
    resolving.add(id);
    let l = 0;
    for (const dep of byId.get(id)?.depends_on ?? []) {
      if (dep !== id && byId.has(dep)) l = Math.max(l, levelOf(dep) + 1);
    }
    resolving.delete(id);
    level.set(id, l);
    return l;
  };

  const levels: string[][] = [];
  for (const s of steps) {
    const l = levelOf(s.id);
    (levels[l] ??= []).push(s.id);
  }
  return levels.filter((l) => l !== undefined);
}
