import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The package as a user gets it: `npm pack` of cli/ (its prepack builds the bundle), installed into
 * an empty directory outside the repository, run with nothing of the repository around it.
 */
describe('the packed command line', { timeout: 300_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'wfctl-pack-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('npm pack → npm install into an empty directory → wfctl runs, its offline validator included', () => {
    const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: 'cli', encoding: 'utf8', timeout: 180_000 });
    expect(packed.status, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(info!.files.map((f) => f.path).sort()).toEqual(['README.md', 'SKILL.md', 'dist/wfctl.js', 'package.json']);

    const project = join(scratch, 'project');
    spawnSync('mkdir', ['-p', project]);
    const installed = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(scratch, info!.filename)], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(installed.status, installed.stderr).toBe(0);
    // No dependency came along: everything is in the one file.
    expect(readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['wfctl']);

    const env = { PATH: process.env.PATH!, HOME: scratch };
    const bin = join(project, 'node_modules', '.bin', 'wfctl');
    const version = spawnSync(bin, ['--version'], { cwd: project, encoding: 'utf8', env });
    expect(version.stdout.trim()).toBe('0.1.0');
    writeFileSync(
      join(project, 'ok.yaml'),
      'manifest_version: "1.0"\nname: Ok\nintent: Works\nsteps:\n  - id: a\n    name: A\n    action: code_agent\n',
    );
    writeFileSync(
      join(project, 'bad.yaml'),
      'manifest_version: "1.0"\nname: Bad\nsteps:\n  - id: a\n    name: A\n    action: code_agent\n    depends_on: [zz]\n',
    );
    const good = spawnSync(bin, ['validate', 'ok.yaml', '--json'], { cwd: project, encoding: 'utf8', env });
    expect(good.status, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ files: [{ file: 'ok.yaml', valid: true, errors: [] }] });
    const bad = spawnSync(bin, ['validate', 'bad.yaml', '--json'], { cwd: project, encoding: 'utf8', env });
    expect(bad.status).toBe(4);
    expect(JSON.parse(bad.stdout).error.details.files[0].errors.map((e: { path: string }) => e.path)).toContain('/steps/0/depends_on/0');
  });
});
