import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The house rules on imports (docs/decisions.md, "Layering"): services never import from a face
 * (a lint rule in eslint.config.js; `npm run lint`), and no module imports itself through others.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

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
    expect(graph.get('workflows/access.ts')).toContain('auth/viewer.ts');
    expect(graph.size).toBeGreaterThan(50);
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

describe('the lint rule: a service does not import a face', () => {
  const eslint = new ESLint({ cwd: ROOT });
  /** The layering messages ESLint gives `code` written as the file `path` (relative to the repository). */
  const refusals = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  };

  it('refuses a service importing a face folder, at any depth of src/, type-only imports and re-exports included', async () => {
    const cases: [string, string, string][] = [
      ['src/workflows/service.ts', "import type { Incoming } from '../http/incoming.js';\nexport type X = Incoming;\n", 'src/http/'],
      ['src/deployments/bundle.ts', "export { renderSkill } from '../mcp/render/index.js';\n", 'src/mcp/'],
      [
        'src/billing/webhook/state.ts',
        "import { successResponse } from '../../rest/envelope.js';\nexport const ok = successResponse;\n",
        'src/rest/',
      ],
      ['src/services.ts', "import { builder } from './graphql/builder.js';\nexport const b = builder;\n", 'src/graphql/'],
      ['src/oauth-store/sessions.ts', "import { readBodyText } from '../http/body.js';\nexport const r = readBodyText;\n", 'src/http/'],
    ];
    for (const [path, code, face] of cases) {
      const messages = await refusals(path, code);
      expect(messages, path).toHaveLength(1);
      expect(messages[0], path).toContain(`${face} is a face`);
    }
  });

  it('refuses a service importing a face file that sits in a resource folder', async () => {
    expect(await refusals('src/workflows/service.ts', "import './graphql.js';\n")).toEqual([
      expect.stringContaining('src/workflows/graphql.ts is a face'),
    ]);
    expect(await refusals('src/limits/quota.ts', "import { clientAddress } from './http.js';\nexport const c = clientAddress;\n")).toEqual([
      expect.stringContaining('src/limits/http.ts is a face'),
    ]);
    expect(
      await refusals('src/billing/webhook/state.ts', "import { WEBHOOK_PATH } from '../webhook.js';\nexport const p = WEBHOOK_PATH;\n"),
    ).toEqual([expect.stringContaining('src/billing/webhook.ts is a face')]);
  });

  it('lets faces import faces, and services import services and packages named like a face', async () => {
    expect(
      await refusals('src/workflows/graphql.ts', "import { builder } from '../graphql/builder.js';\nexport const b = builder;\n"),
    ).toEqual([]);
    expect(
      await refusals('src/limits/http.ts', "import { errorResponse } from '../rest/envelope.js';\nexport const e = errorResponse;\n"),
    ).toEqual([]);
    expect(
      await refusals('src/oauth/sign-in.ts', "import { readBodyText } from '../http/body.js';\nexport const r = readBodyText;\n"),
    ).toEqual([]);
    expect(
      await refusals(
        'src/workflows/service.ts',
        "import { GraphQLError } from 'graphql';\nimport { AppError } from '../errors.js';\nexport { GraphQLError, AppError };\n",
      ),
    ).toEqual([]);
    expect(await refusals('src/billing/service.ts', "import { isLive } from './webhook/state.js';\nexport const l = isLive;\n")).toEqual(
      [],
    );
  });

  it('applies to every file of src/ outside the face folders, except the face files named in eslint.config.js', async () => {
    const exempt: string[] = [];
    for (const file of [...graph.keys()].filter((f) => !/^(edge|graphql|rest|mcp|http)\//.test(f))) {
      const config = await eslint.calculateConfigForFile(join(SRC, file));
      const severity = [config.rules?.['no-restricted-imports']].flat()[0];
      if (severity === 0 || severity === 'off') exempt.push(file);
      else expect(severity, file).toBe(2);
    }
    const resourceFaces = exempt.filter((f) => /^[^/]+\/(graphql|http)\.ts$/.test(f));
    expect(resourceFaces.length).toBeGreaterThan(10);
    expect(exempt.filter((f) => !resourceFaces.includes(f)).sort()).toEqual([
      'app.ts',
      'billing/webhook.ts',
      'dashboard/static.ts',
      'main.ts',
      'oauth/authorization-server.ts',
      'oauth/browser-errors.ts',
      'oauth/cookies.ts',
      'oauth/device-flow.ts',
      'oauth/email-sign-in.ts',
      'oauth/github-sign-in.ts',
      'oauth/interaction.ts',
      'oauth/pages.ts',
      'oauth/provider-configuration.ts',
      'oauth/sign-in-pages.ts',
      'oauth/sign-in.ts',
    ]);
  });
});

describe('the lint rule: a face does not reach the database', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const refusals = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
  };

  it('refuses a face importing the database module or Prisma, type-only imports included', async () => {
    const cases: [string, string, string][] = [
      [
        'src/graphql/loaders.ts',
        "import type { Database } from '../db/index.js';\nexport type D = Database;\n",
        'src/db/ is the database module',
      ],
      ['src/rest/handler.ts', "import { isUniqueViolation } from '../db/errors.js';\nexport const u = isUniqueViolation;\n", 'src/db/'],
      [
        'src/workflows/graphql.ts',
        "import type { Workflow } from '@prisma/client';\nexport type W = Workflow;\n",
        'Prisma and the drivers',
      ],
      ['src/billing/graphql.ts', "import { Prisma } from '@prisma/client';\nexport const p = Prisma;\n", 'Prisma and the drivers'],
      ['src/mcp/render/names.ts', "import type { ReadRows } from '../../db/statement.js';\nexport type R = ReadRows;\n", 'src/db/'],
      ['src/http/body.ts', "import pg from 'pg';\nexport const p = pg;\n", 'Prisma and the drivers'],
      ['src/oauth/keys.ts', "import { openDatabase } from '../db/index.js';\nexport const o = openDatabase;\n", 'src/db/'],
      ['src/dashboard/static.ts', "export { openDatabase } from '../db/index.js';\n", 'src/db/'],
      ['src/billing/webhook.ts', "import type { Database } from '../db/index.js';\nexport type D = Database;\n", 'src/db/'],
      ['src/limits/http.ts', "import type { Prisma } from '@prisma/client';\nexport type P = Prisma.UserWhereInput;\n", 'Prisma'],
    ];
    for (const [path, code, reason] of cases) {
      const messages = await refusals(path, code);
      expect(messages, path).toHaveLength(1);
      expect(messages[0], path).toContain(reason);
    }
  });

  it('lets services and the composition root import the database, and faces import services', async () => {
    expect(await refusals('src/workflows/service.ts', "import { Prisma } from '@prisma/client';\nexport const p = Prisma;\n")).toEqual([]);
    expect(
      await refusals('src/billing/webhook/apply.ts', "import type { Database } from '../../db/index.js';\nexport type D = Database;\n"),
    ).toEqual([]);
    expect(await refusals('src/app.ts', "import { openDatabase } from './db/index.js';\nexport const o = openDatabase;\n")).toEqual([]);
    expect(
      await refusals('src/graphql/loaders.ts', "import type { Workflow } from '../workflows/service.js';\nexport type W = Workflow;\n"),
    ).toEqual([]);
  });

  it('holds for every face file as it stands', async () => {
    const faces = [...graph.keys()].filter((f) => /^(graphql|rest|mcp|http|dashboard)\//.test(f) || /^[^/]+\/(graphql|http)\.ts$/.test(f));
    expect(faces.length).toBeGreaterThan(40);
    const results = await eslint.lintFiles(faces.map((f) => join(SRC, f)));
    const messages = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((m) => `${relative(SRC, r.filePath)}: ${m.message}`),
    );
    expect(messages).toEqual([]);
  });
});
