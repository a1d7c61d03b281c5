import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house's size rule (docs/decisions.md, "Layering"): no function in src/ spans more than
 * 120 lines, nested functions counted in their parent's span. A longer one is a closure carrying
 * several things an outline cannot show; it becomes named functions of a module.
 */

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const LIMIT = 120;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node);
}

function nameOf(node: FunctionLike): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** Every function of a file longer than the limit, as `file:line name (N lines)`. */
function longFunctions(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > LIMIT) found.push(`${relative(SRC, file)}:${start + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length in src/', () => {
  it(`catches a function of ${LIMIT + 1} lines, nested in a factory, and passes one of ${LIMIT}`, () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `    const v${i} = ${i};`).join('\n');
    const text = `export function make() {\n  const long = () => {\n${body(LIMIT + 1)}\n  };\n  return long;\n}\n`;
    expect(longFunctions(join(SRC, 'probe.ts'), text)).toEqual([
      `probe.ts:1 make (${LIMIT + 4} lines)`,
      `probe.ts:2 long (${LIMIT + 1} lines)`,
    ]);
    expect(longFunctions(join(SRC, 'probe.ts'), `const fine = () => {\n${body(LIMIT)}\n};\n`)).toEqual([]);
  });

  it(`has no function longer than ${LIMIT} lines`, () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => longFunctions(file))).toEqual([]);
  });
});
