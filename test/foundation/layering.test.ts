import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house rules on imports (docs/decisions.md, "Layering"): services never import from a face,
 * the viewer comes from authentication, and no module imports itself through others.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const FACES = ['graphql', 'rest', 'mcp', 'http'];
/** The service layer: each resource's rules, and what they build on. */
const SERVICE_FILES =
  /^(workflows|library|deployments|users|billing|reviews|marketplace|limits|manifest)\/(?!graphql\.ts$)[^/]+\.ts$|^services\.ts$|^auth\//;
/** Files that are faces themselves though they sit in a resource folder (HTTP handlers). */
const FACE_FILES = new Set(['billing/webhook.ts', 'limits/http.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file (type-only ones included: a type import still couples the layers). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)) {
    out.push(relative(SRC, resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
  }
  return out;
}

const graph = new Map(sourceFiles(SRC).map((f) => [relative(SRC, f), importsOf(f)]));

describe('layering of src/', () => {
  it('finds the modules it checks', () => {
    expect(graph.get('workflows/service.ts')).toContain('auth/viewer.ts');
    expect(graph.size).toBeGreaterThan(50);
  });

  it('no service imports from a face (graphql/, rest/, mcp/, http/)', () => {
    const offending: string[] = [];
    for (const [file, imports] of graph) {
      if (!SERVICE_FILES.test(file) || FACE_FILES.has(file)) continue;
      for (const target of imports) if (FACES.includes(target.split('/')[0]!)) offending.push(`${file} → ${target}`);
    }
    expect(offending).toEqual([]);
  });

  it('has no import circles', () => {
    // Tarjan's strongly connected components; any component of two or more files is a circle.
    let index = 0;
    const indexOf = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    const visit = (v: string) => {
      indexOf.set(v, index);
      low.set(v, index);
      index += 1;
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!indexOf.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
      if (low.get(v) === indexOf.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
    expect(circles).toEqual([]);
  });
});
