import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleManifest } from '../helpers/workflows.js';
import { buildCli, runCli, startService, tempHome, type RunningService } from './cli.js';

/**
 * `wfctl push` saves only over what it read (docs/concurrency.md): another client's change that
 * lands between push's read of the workflow and its write is not replaced. The built command line
 * runs against the service on a loopback port; the other client's change is made just before the
 * service handles push's PUT.
 */

describe('wfctl push and a change made while it runs', { timeout: 180_000 }, () => {
  let service: RunningService;
  let home: ReturnType<typeof tempHome>;
  let env: Record<string, string>;
  let idToken: string;
  /** The change another client makes before the next PUT of push is handled (once). */
  let racingChange: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    buildCli();
    service = await startService(
      {},
      {
        async beforeRequest(request) {
          if (request.method !== 'PUT' || request.headers.get('user-agent') !== 'wfctl' || !racingChange) return;
          const change = racingChange;
          racingChange = null;
          await change();
        },
      },
    );
    home = tempHome();
    idToken = await service.t.token('racer@example.com');
    const key = await service.t.call('POST', '/v1/api-keys', { token: idToken, body: { name: 'wfctl', scope: 'api' } });
    env = { ...home.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: key.body.data.secret };
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    home?.remove();
  });

  it('refuses the push with a conflict and keeps the other change; --force then replaces what it read', async () => {
    const created = await service.t.call('POST', '/v1/workflows', { token: idToken, body: { name: 'Raced', manifest: sampleManifest() } });
    const workflowId = created.body.data.workflowId as string;
    const work = join(home.home, 'manifests');
    expect((await runCli(['pull', '--dir', work, '--json'], { env })).code).toBe(0);
    const file = join(work, 'raced.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Plan the change', 'name: Plan the change first'));

    racingChange = async () => {
      const other = await service.t.call('PUT', `/v1/workflows/${workflowId}`, {
        token: idToken,
        body: {
          manifest: sampleManifest({ steps: [...sampleManifest().steps, { id: 'theirs', name: 'Their step', action: 'code_agent' }] }),
        },
      });
      expect(other.status).toBe(200);
    };
    const pushed = await runCli(['push', '--dir', work, '--json'], { env });
    expect(racingChange).toBeNull();
    expect(pushed.code).toBe(5);
    expect(pushed.json.error.code).toBe('CONFLICT');
    expect(pushed.json.error.message).toContain('raced.yaml (changed by someone else while this push ran');
    expect(pushed.json.error.hint).toContain('wfctl pull --force');
    // The other client's step is still there; the file's edit was not saved.
    const now = await service.t.call('GET', `/v1/workflows/${workflowId}`, { token: idToken });
    const steps = now.body.data.manifest.steps as Array<{ id: string; name: string }>;
    expect(steps.map((s) => s.id)).toContain('theirs');
    expect(steps.find((s) => s.id === 'plan')!.name).toBe('Plan the change');

    // Without a race, the same push goes through.
    const forced = await runCli(['push', '--dir', work, '--force', '--json'], { env });
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    const after = await service.t.call('GET', `/v1/workflows/${workflowId}`, { token: idToken });
    expect((after.body.data.manifest.steps as Array<{ id: string; name: string }>).find((s) => s.id === 'plan')!.name).toBe(
      'Plan the change first',
    );
  });
});
