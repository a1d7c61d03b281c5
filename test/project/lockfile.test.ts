import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` refuses a lock that is out of sync with package.json, and a lock that lacks another
 * platform's optional package (a native build of esbuild or rollup) is out of sync for it.
 */

interface LockPackage {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = new URL('../../', import.meta.url);
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockPackage>;
};
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Where npm would find `name` for the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): LockPackage | undefined {
  let base = from;
  for (;;) {
    const found = lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`];
    if (found) return found;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  it('names exactly the dependencies of package.json', () => {
    expect(lock.lockfileVersion).toBe(3);
    const top = lock.packages[''] as LockPackage & { devDependencies?: Record<string, string> };
    expect(top.dependencies).toEqual(manifest.dependencies);
    expect(top.devDependencies).toEqual(manifest.devDependencies);
    expect(Object.keys(manifest.dependencies)).not.toContain('sofa-api');
  });

  it("holds every platform's optional packages of every locked package", () => {
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
        if (!resolve(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('resolves every dependency of every locked package', () => {
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      for (const name of Object.keys(pkg.dependencies ?? {})) if (!resolve(path, name)) missing.push(`${path || '(root)'} → ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
