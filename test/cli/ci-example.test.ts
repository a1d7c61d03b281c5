import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleManifest } from '../helpers/workflows.js';
import { buildCli, runCli, startService, tempHome, type RunningService } from './cli.js';

/**
 * The README's CI example ("Manifests in a repository, pushed on merge"), run as CI would run it:
 * its `wfctl` steps, in a checkout of a manifests repository, with only WFCTL_SERVICE and an API key
 * in WFCTL_API_KEY (no sign-in, no state file kept between runs).
 */

function exampleSteps(): string[][] {
  const readme = readFileSync('README.md', 'utf8');
  const block = /<!-- ci-example:start -->([\s\S]*?)<!-- ci-example:end -->/.exec(readme)?.[1];
  if (!block) throw new Error('the README has no CI example between its ci-example markers');
  return [...block.matchAll(/^\s*- run: wfctl (.+)$/gm)].map((m) => m[1]!.trim().split(/\s+/));
}

describe("the README's CI example", { timeout: 180_000 }, () => {
  let service: RunningService;
  let apiKey: string;
  let idToken: string;

  beforeAll(async () => {
    buildCli();
    service = await startService();
    idToken = await service.t.token('ci@example.com');
    const key = await service.t.call('POST', '/v1/api-keys', { token: idToken, body: { name: 'CI', scope: 'api' } });
    expect(key.status).toBe(201);
    apiKey = key.body.data.secret;
  }, 180_000);

  afterAll(async () => {
    await service?.close();
  });

  /** A fresh checkout of the repository at one commit, and the example's steps run in it. */
  async function runPipeline(files: Record<string, string>) {
    const home = tempHome();
    try {
      const checkout = join(home.home, 'checkout');
      mkdirSync(join(checkout, 'manifests'), { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(checkout, 'manifests', name), text);
      const env = { HOME: home.home, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey };
      const results = [];
      for (const step of exampleSteps()) {
        const result = await runCli([...step, '--json'], { env, cwd: checkout });
        expect(result.code, `wfctl ${step.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
        results.push({ step: step[0], json: result.json });
      }
      return results;
    } finally {
      home.remove();
    }
  }

  const deployFile = 'name: Repository pipeline\nworkflows: [review.yaml, nightly.yaml]\nadapters: [adapter_one]\n';
  const review = (intent: string) =>
    `manifest_version: "1.0"\nname: Review from the repository\nintent: ${intent}\nsteps:\n${sampleManifest()
      .steps.map(
        (s: any) =>
          `  - id: ${s.id}\n    name: ${s.name}\n    action: ${s.action}${s.depends_on ? `\n    depends_on: [${s.depends_on.join(', ')}]` : ''}`,
      )
      .join('\n')}\n`;
  const nightly =
    'manifest_version: "1.0"\nname: Nightly upgrade\nintent: Upgrade dependencies\nsteps:\n  - id: up\n    name: Upgrade\n    action: code_agent\n';

  async function mine() {
    const res = await service.t.call('GET', '/v1/workflows?limit=100', { token: idToken });
    return res.body.data as Array<{ workflowId: string; name: string; currentVersion: string }>;
  }

  it('first merge creates the workflows and the deployment; the next merges update them, and an unchanged one makes no version', async () => {
    expect(exampleSteps().map((s) => s[0])).toEqual(['validate', 'push', 'deploy']);

    const first = await runPipeline({
      'review.yaml': review('Review every change'),
      'nightly.yaml': nightly,
      'wfctl.deploy.yaml': deployFile,
    });
    expect(first[1]!.json.created).toHaveLength(2);
    expect(first[2]!.json).toMatchObject({ action: 'created', name: 'Repository pipeline' });
    expect((await mine()).map((w) => [w.name, w.currentVersion]).sort()).toEqual([
      ['Nightly upgrade', '1.0.0'],
      ['Review from the repository', '1.0.0'],
    ]);

    // The next merge edits one manifest: one new version, nothing made twice.
    const second = await runPipeline({
      'review.yaml': review('Review every change carefully'),
      'nightly.yaml': nightly,
      'wfctl.deploy.yaml': deployFile,
    });
    expect(second[1]!.json.created).toEqual([]);
    expect(second[1]!.json.updated.map((u: any) => [u.file, u.to])).toEqual([['review.yaml', '1.0.1']]);
    expect(second[2]!.json).toMatchObject({ action: 'updated', deploymentId: first[2]!.json.deploymentId });
    expect((await mine()).map((w) => [w.name, w.currentVersion]).sort()).toEqual([
      ['Nightly upgrade', '1.0.0'],
      ['Review from the repository', '1.0.1'],
    ]);

    // Run again on the same commit: no new version anywhere.
    await runPipeline({ 'review.yaml': review('Review every change carefully'), 'nightly.yaml': nightly, 'wfctl.deploy.yaml': deployFile });
    expect((await mine()).map((w) => w.currentVersion).sort()).toEqual(['1.0.0', '1.0.1']);
    const deployments = await service.t.call('GET', '/v1/deployments', { token: idToken });
    expect(deployments.body.data).toHaveLength(1);
  });

  it('an invalid manifest stops the pipeline at validate, before anything is pushed', async () => {
    const home = tempHome();
    try {
      const checkout = join(home.home, 'checkout');
      mkdirSync(join(checkout, 'manifests'), { recursive: true });
      writeFileSync(join(checkout, 'manifests', 'broken.yaml'), 'manifest_version: "1.0"\nname: Broken\nsteps: []\n');
      const [validate] = exampleSteps();
      const result = await runCli([...validate!, '--json'], {
        env: { HOME: home.home, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey },
        cwd: checkout,
      });
      expect(result.code).toBe(4);
      expect(result.json.error.code).toBe('VALIDATION_ERROR');
    } finally {
      home.remove();
    }
  });
});
