import { readFileSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, launchChromium } from '../browser/service.js';
import { sampleManifest } from '../helpers/workflows.js';
import { buildCli, runCli, startCli, startService, tempHome, waitFor, type RunningService } from './cli.js';

/**
 * The built command line (cli/dist/wfctl.js) as a person and CI run it, against the service on a
 * loopback port: the device sign-in approved in Chromium, manifests as files, conflicts, deploy,
 * and every bad input the command line names.
 */

const EMAIL = 'cli-user@example.com';

// Each step starts the command line several times; on a loaded 2-core machine a process takes seconds.
describe('wfctl against a running service', { timeout: 180_000 }, () => {
  let service: RunningService;
  let chromium: { browser: Browser; close(): Promise<void> };
  let home: ReturnType<typeof tempHome>;
  let env: Record<string, string>;
  let work: string;
  let idToken: string;

  beforeAll(async () => {
    buildCli();
    service = await startService();
    chromium = await launchChromium();
    home = tempHome();
    env = { ...home.env, WFCTL_SERVICE: service.origin };
    work = join(home.home, 'manifests');
    idToken = await service.t.token(EMAIL);
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.close();
    home?.remove();
  });

  const wfctl = (...args: string[]) => runCli(args, { env });

  /** The two choices of a service page side by side, the second outlined (white), as on the MCP consent page. */
  async function expectChoices(page: Page, first: string, second: string): Promise<void> {
    const a = page.getByRole('button', { name: first, exact: true });
    const b = page.getByRole('button', { name: second, exact: true });
    const [boxA, boxB] = [await a.boundingBox(), await b.boundingBox()];
    expect(Math.abs(boxA!.y - boxB!.y), `${first} and ${second} side by side`).toBeLessThan(2);
    expect(await b.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
    expect(await a.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe('rgb(255, 255, 255)');
  }

  it('signs in with the device flow, approved in Chromium; the credential is a file only the user can read', async () => {
    const login = startCli(['login', '--device', '--no-browser', '--json'], env);
    // A loaded machine takes its time to start a process: the wait is generous, and bounded.
    const [, userCode] = await waitFor(login.stderr, /enter the code ([A-Z]{4}-[A-Z]{4})/, 90_000);
    const [, complete] = await waitFor(login.stderr, /or open (\S+)/);
    expect(complete).toContain(`user_code=${userCode}`);

    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await page.goto(complete!);
    // The service's own confirmation page shows the code the terminal shows.
    await expect(page.getByRole('heading', { name: 'Is this the code on your screen?' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('main').innerText()).toContain(userCode);
    // Continue and Cancel side by side, Cancel outlined like the MCP consent page's Deny.
    await expectChoices(page, 'Continue', 'Cancel');
    await checkPage(page, 'cli-device-confirm', "wfctl login --device's code confirmation");
    await page.getByRole('button', { name: 'Continue' }).click();
    // Not signed in yet: the dashboard's sign-in, then back to finish.
    await page.waitForURL(/\/sign-in\?return=/);
    const asking = await page.locator('p.asking').innerText();
    expect(asking).toContain('Sign in to finish wfctl login --device');
    expect(asking).toContain('not to a deployment');
    expect(asking).not.toContain('one of your deployments');
    expect(asking).not.toContain('returns to');
    await page.getByLabel('E-mail address').fill(EMAIL);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'The command line is signed in' }).waitFor({ timeout: 15_000 });
    await context.close();

    const result = await login.result;
    expect(result.stderr).not.toContain('error');
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ email: EMAIL, credentialStore: 'file' });
    const file = join(home.home, '.config', 'wfctl', 'credentials.json');
    expect(result.json.location).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'))[service.origin];
    expect(stored).toMatchObject({ kind: 'oauth', email: EMAIL });
    expect(stored.refreshToken).toEqual(expect.any(String));

    const me = await wfctl('whoami', '--json');
    expect(me.code).toBe(0);
    expect(me.json).toMatchObject({ email: EMAIL, credential: 'oauth' });
    // The token is the API's: it opens REST, and the service says who it is for.
    const rest = await fetch(`${service.origin}/v1/users/me`, { headers: { authorization: `Bearer ${stored.accessToken}` } });
    expect(rest.status).toBe(200);
  });

  it('signs in through the browser with a loopback redirect: the printed address opened in Chromium, sign-in, Allow', async () => {
    const other = tempHome();
    const otherEnv = { ...other.env, WFCTL_SERVICE: service.origin };
    try {
      const login = startCli(['login', '--no-browser', '--json'], otherEnv);
      const [, url] = await waitFor(login.stderr, /Sign in in your browser: (\S+)/, 90_000);
      const authorize = new URL(url!);
      expect(authorize.searchParams.get('client_id')).toBe('wfctl');
      expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      // A local process that reaches the loopback callback first, with a code of its own and a state
      // that is not this sign-in's (or none), is answered and ignored: the command line keeps waiting.
      const callback = authorize.searchParams.get('redirect_uri')!;
      for (const query of ['?code=attacker-code&state=forged', '?code=attacker-code', '?error=access_denied&state=forged']) {
        const replay = await fetch(`${callback}${query}`);
        expect(replay.status).toBe(400);
        expect(await replay.text()).toContain('does not belong to the sign-in in progress');
      }

      const context = await chromium.browser.newContext();
      const page = await context.newPage();
      await page.goto(url!);
      await page.getByLabel('E-mail address').fill('loopback-user@example.com', { timeout: 30_000 });
      const asking = await page.locator('p.asking').innerText();
      expect(asking).toMatch(/^Sign in to continue signing in the command line .+ \(returns to 127\.0\.0\.1:\d+\)\. It gets access/);
      expect(asking).toContain('not to a deployment');
      expect(asking).not.toContain('one of your deployments');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor({ timeout: 30_000 });
      await expectChoices(page, 'Allow', 'Deny');
      await checkPage(page, 'cli-consent', "wfctl login's consent page");
      await page.getByRole('button', { name: 'Allow' }).click();
      // The command line's own loopback page answers the redirect.
      await page.getByRole('heading', { name: 'The command line is signed in' }).waitFor({ timeout: 30_000 });
      expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
      await context.close();

      const result = await login.result;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.json).toMatchObject({ email: 'loopback-user@example.com', credentialStore: 'file' });
      const me = await runCli(['whoami', '--json'], { env: otherEnv });
      expect(me.code).toBe(0);
      expect(me.json).toMatchObject({ email: 'loopback-user@example.com', credential: 'oauth' });
    } finally {
      other.remove();
    }
  });

  it('a wrong user code is refused on the service page with what to do', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${service.origin}/oauth/device`);
    await page.getByLabel('Code').fill('BCDF-GHJK');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.locator('[role=alert]').innerText()).resolves.toContain('not known or has expired');
    await context.close();
  });

  it('pull, edit, diff, push: one new version; push again: no new version', async () => {
    const created = await service.t.call('POST', '/v1/workflows', {
      token: idToken,
      body: { name: 'Review pipeline', manifest: sampleManifest() },
    });
    expect(created.status).toBe(201);
    const workflowId = created.body.data.workflowId;

    const pulled = await wfctl('pull', '--dir', work, '--json');
    expect(pulled.code).toBe(0);
    expect(pulled.json.written).toEqual([{ file: 'review-pipeline.yaml', workflowId, version: '1.0.0' }]);
    const file = join(work, 'review-pipeline.yaml');
    const state = JSON.parse(readFileSync(join(work, 'wfctl.state.json'), 'utf8'));
    expect(state.workflows['review-pipeline.yaml']).toMatchObject({ workflowId, version: '1.0.0' });

    // Nothing changed: diff is empty, push makes no version.
    expect((await wfctl('diff', '--dir', work, '--json')).json.changed).toBe(0);
    const untouched = await wfctl('push', '--dir', work, '--json');
    expect(untouched.json).toMatchObject({ created: [], updated: [], unchanged: [{ file: 'review-pipeline.yaml' }] });

    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review\n', 'name: Review carefully\n'));
    const diff = await wfctl('diff', '--dir', work);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('-    name: Review\n');
    expect(diff.stdout).toContain('+    name: Review carefully\n');
    expect((await wfctl('diff', '--dir', work, '--exit-code')).code).toBe(1);

    const dry = await wfctl('push', '--dir', work, '--dry-run', '--json');
    expect(dry.json.updated).toEqual([{ file: 'review-pipeline.yaml', workflowId, from: '1.0.0' }]);
    expect((await versions(workflowId)).length).toBe(1);

    const pushed = await wfctl('push', '--dir', work, '--json');
    expect(pushed.code).toBe(0);
    expect(pushed.json.updated).toEqual([{ file: 'review-pipeline.yaml', workflowId, from: '1.0.0', to: '1.0.1' }]);
    expect(await versions(workflowId)).toEqual(['1.0.1', '1.0.0']);

    const again = await wfctl('push', '--dir', work, '--json');
    expect(again.json).toMatchObject({ created: [], updated: [] });
    expect(await versions(workflowId)).toEqual(['1.0.1', '1.0.0']);

    // A new file is a new workflow.
    writeFileSync(
      join(work, 'nightly.yaml'),
      'manifest_version: "1.0"\nname: Nightly\nintent: Upgrade dependencies nightly\nsteps:\n  - id: up\n    name: Upgrade\n    action: code_agent\n',
    );
    const fresh = await wfctl('push', '--dir', work, '--json');
    expect(fresh.json.created).toEqual([{ file: 'nightly.yaml', workflowId: expect.any(String), to: '1.0.0' }]);
  });

  async function versions(workflowId: string): Promise<string[]> {
    const res = await service.t.call('GET', `/v1/workflows/${workflowId}/versions`, { token: idToken });
    return res.body.data.map((v: { version: string }) => v.version);
  }

  it('refuses a push over a change made on the service since the last pull, unless --force', async () => {
    const state = JSON.parse(readFileSync(join(work, 'wfctl.state.json'), 'utf8'));
    const { workflowId } = state.workflows['review-pipeline.yaml'];
    const edited = await service.t.call('PUT', `/v1/workflows/${workflowId}`, {
      token: idToken,
      body: { manifest: sampleManifest({ intent: 'Changed in the dashboard' }) },
    });
    expect(edited.body.data.currentVersion).toBe('1.0.2');
    const file = join(work, 'review-pipeline.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Plan the change', 'name: Plan the change well'));

    const refused = await wfctl('push', '--dir', work);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(
      'error [CONFLICT]: changed on the service since your last pull, not pushed: review-pipeline.yaml (you have 1.0.1, the service has 1.0.2)',
    );
    expect(refused.stderr).toContain('wfctl pull --force');
    expect(await versions(workflowId)).toEqual(['1.0.2', '1.0.1', '1.0.0']);
    const asJson = await wfctl('push', '--dir', work, '--json');
    expect(asJson.code).toBe(5);
    expect(asJson.json.error).toMatchObject({ code: 'CONFLICT' });

    // diff names it, and pull does not overwrite the local edit without --force.
    const diff = await wfctl('diff', '--dir', work, '--json');
    expect(diff.json.files.find((f: any) => f.file === 'review-pipeline.yaml')).toMatchObject({
      status: 'changed-on-service',
      serviceVersion: '1.0.2',
    });
    const pull = await wfctl('pull', '--dir', work, '--json');
    expect(pull.code).toBe(5);
    expect(pull.json.error.message).toContain('edited locally since the last pull');

    const forced = await wfctl('push', '--dir', work, '--force', '--json');
    expect(forced.code).toBe(0);
    expect(forced.json.updated[0]).toMatchObject({ file: 'review-pipeline.yaml', from: '1.0.2', to: '1.0.3' });
  });

  it('deploys from a file naming workflows and adapters: created, then updated; listed', async () => {
    const deployFile = join(work, 'wfctl.deploy.yaml');
    writeFileSync(
      deployFile,
      'name: Team pipeline\ndescription: Plans and reviews\nworkflows: [review-pipeline.yaml]\nadapters: [adapter_one]\n',
    );
    const dry = await runCli(['deploy', '--dry-run', '--json'], { env, cwd: work });
    expect(dry.json).toMatchObject({ dryRun: true, action: 'create' });
    const created = await runCli(['deploy', '--json'], { env, cwd: work });
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      action: 'created',
      name: 'Team pipeline',
      mcpEndpoint: `${service.origin}/v1/mcp/${created.json.deploymentId}`,
    });

    writeFileSync(
      deployFile,
      'name: Team pipeline\nworkflows: [review-pipeline.yaml, nightly.yaml]\nadapters: [adapter_one, adapter_two]\n',
    );
    const updated = await runCli(['deploy', deployFile, '--json'], { env });
    expect(updated.json).toMatchObject({ action: 'updated', deploymentId: created.json.deploymentId });
    const list = await wfctl('deployments', 'list', '--json');
    expect(list.json.deployments).toHaveLength(1);
    expect(list.json.deployments[0]).toMatchObject({ deploymentId: created.json.deploymentId, name: 'Team pipeline' });
    const usage = await wfctl('usage', created.json.deploymentId, '--json');
    expect(usage.code).toBe(0);
    // For a person: sentences, not the JSON document.
    const human = await wfctl('usage', created.json.deploymentId);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${created.json.deploymentId}, this `);
    expect(human.stdout).toContain('0 connections');
    expect(human.stdout).toMatch(/by adapter: adapter_one 0/);
    expect(human.stdout).not.toContain('{');
  });

  it('marketplace search, subscribe and fork', async () => {
    const other = await service.t.token('publisher@example.com');
    const published = await service.t.call('POST', '/v1/workflows', {
      token: other,
      body: {
        name: 'Changelog writer',
        description: 'Writes the changelog from merged pull requests',
        manifest: sampleManifest({ name: 'Changelog writer' }),
        visibility: 'public',
      },
    });
    const id = published.body.data.workflowId;
    const found = await wfctl('marketplace', 'search', 'changelog', '--json');
    expect(found.code).toBe(0);
    expect(found.json.workflows.map((w: any) => w.workflowId)).toContain(id);
    expect((await wfctl('subscribe', id, '--dry-run', '--json')).json).toMatchObject({ dryRun: true, workflowId: id });
    expect((await wfctl('subscribe', id, '--json')).code).toBe(0);
    const fork = await wfctl('fork', id, '--name', 'My changelog', '--json');
    expect(fork.code).toBe(0);
    expect(fork.json).toMatchObject({ name: 'My changelog' });
  });

  describe('bad input', () => {
    it('invalid manifests: validate offline names each problem; push sends nothing', async () => {
      const dir = join(home.home, 'bad');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'cycle.yaml'),
        'manifest_version: "1.0"\nname: Loop\nintent: Loops\nsteps:\n  - id: a\n    name: A\n    action: code_agent\n    depends_on: [b]\n  - id: b\n    name: B\n    action: code_agent\n    depends_on: [a]\n',
      );
      writeFileSync(join(dir, 'broken.yaml'), 'name: [unclosed\n');
      writeFileSync(join(dir, 'broken.json'), '{"name": ');
      const checked = await runCli(['validate', '--dir', dir, '--json'], { env: { PATH: process.env.PATH! } });
      expect(checked.code).toBe(4);
      expect(checked.json.error.code).toBe('VALIDATION_ERROR');
      const files = checked.json.error.details.files;
      expect(files.map((f: any) => [f.file, f.valid])).toEqual([
        ['broken.json', false],
        ['broken.yaml', false],
        ['cycle.yaml', false],
      ]);
      expect(files[2].errors.map((e: any) => e.code)).toContain('circular_dependency');
      const human = await runCli(['validate', 'cycle.yaml', '--dir', dir], { env: { PATH: process.env.PATH! } });
      expect(human.code).toBe(4);
      expect(human.stderr).toMatch(/cycle\.yaml: \/steps.*circular_dependency/);
      const pushed = await runCli(['push', '--dir', dir, '--json'], { env });
      expect(pushed.code).toBe(4);
      expect(pushed.json.error.hint).toContain('Nothing was pushed');
      expect(existsSync(join(dir, 'wfctl.state.json'))).toBe(false);
      // The validator is the service's: the same messages as POST /v1/manifests/validate.
      const serviceSays = await service.t.call('POST', '/v1/manifests/validate', {
        token: idToken,
        body: { manifest: readFileSync(join(dir, 'cycle.yaml'), 'utf8') },
      });
      expect(files[2].errors).toEqual(serviceSays.body.data.errors);
    });

    it('usage errors exit 2 with the usage named', async () => {
      const unknown = await wfctl('launch', '--json');
      expect(unknown.code).toBe(2);
      expect(unknown.json.error).toMatchObject({ code: 'USAGE' });
      expect((await wfctl('usage')).code).toBe(2);
      expect((await wfctl('pull', '--format', 'toml')).code).toBe(2);
      expect((await wfctl('marketplace', 'search', 'x', '--limit', '500', '--json')).json.error.message).toContain(
        '--limit must be a whole number from 1 to 100',
      );
      const http = await runCli(['whoami', '--json'], { env: { ...env, WFCTL_SERVICE: 'http://service.example.com' } });
      expect(http.code).toBe(2);
      expect(http.json.error.message).toContain('plain http to another machine');
      expect((await runCli(['whoami'], { env: { ...env, WFCTL_SERVICE: 'not a url' } })).code).toBe(2);
      const help = await wfctl('push', '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--dry-run');
    });

    it('bad deploy files, unknown ids and missing files are refused with what to do', async () => {
      const bad = join(home.home, 'deploy-bad.yaml');
      writeFileSync(bad, 'name: X\nworkflows: []\nadapters: [adapter_nine]\nextra: 1\n');
      const refused = await wfctl('deploy', bad, '--json');
      expect(refused.code).toBe(4);
      expect(refused.json.error.details.problems).toEqual([
        "unknown key 'extra' (known: name, description, workflows, adapters, allowAnonymous)",
        'workflows must be a non-empty list of manifest files or workflow ids',
        'adapters must be a list of adapter_one, adapter_two, adapter_three',
      ]);
      expect((await wfctl('deploy', join(home.home, 'none.yaml'), '--json')).code).toBe(6);
      writeFileSync(bad, 'name: X\nworkflows: [unpushed.yaml]\n');
      expect((await wfctl('deploy', bad, '--json')).json.error.message).toContain('unpushed.yaml is not in wfctl.state.json');
      const unknownId = await wfctl('fork', 'wf_doesnotexist', '--json');
      expect(unknownId.code).toBe(6);
      expect(unknownId.json.error.code).toBe('NOT_FOUND');
      expect((await wfctl('usage', 'dep_nope', '--json')).code).toBe(6);
      expect((await wfctl('push', 'missing.yaml', '--dir', work, '--json')).code).toBe(6);
      expect((await wfctl('pull', '--dir', join(home.home, 'no-such-dir'), '--dry-run', '--json')).code).toBe(6);
      const stateDir = join(home.home, 'bad-state');
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(join(stateDir, 'wfctl.state.json'), '{');
      expect((await wfctl('push', '--dir', stateDir, '--json')).json.error).toMatchObject({ code: 'INVALID_FILE' });
    });

    it('credentials: none, a wrong API key, an mcp-scope key, and an unreachable service', async () => {
      const bare = tempHome();
      try {
        const none = await runCli(['whoami', '--json'], { env: { ...bare.env, WFCTL_SERVICE: service.origin } });
        expect(none.code).toBe(3);
        expect(none.json.error).toMatchObject({ code: 'NOT_SIGNED_IN' });
        expect(none.json.error.hint).toContain('wfctl login');
        const wrong = await runCli(['whoami', '--json'], {
          env: { ...bare.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: 'wfk_notarealkey000000000000000000000000' },
        });
        expect(wrong.code).toBe(3);
        expect(wrong.json.error.code).toBe('UNAUTHORIZED');
        const key = await service.t.call('POST', '/v1/api-keys', { token: idToken, body: { name: 'tools only', scope: 'mcp' } });
        const mcpKey = await runCli(['whoami', '--json'], {
          env: { ...bare.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: key.body.data.secret },
        });
        expect(mcpKey.code).toBe(3);
        expect(mcpKey.json.error).toMatchObject({ code: 'FORBIDDEN' });
        expect(mcpKey.json.error.hint).toContain('scope "api"');
        const down = await runCli(['whoami', '--json'], {
          env: { ...bare.env, WFCTL_SERVICE: 'http://127.0.0.1:9', WFCTL_API_KEY: 'wfk_x' },
        });
        expect(down.code).toBe(7);
        expect(down.json.error.code).toBe('SERVICE_UNREACHABLE');
      } finally {
        bare.remove();
      }
    });
  });

  it('logout revokes the sign-in at the service and forgets it', async () => {
    const file = join(home.home, '.config', 'wfctl', 'credentials.json');
    const { accessToken } = JSON.parse(readFileSync(file, 'utf8'))[service.origin];
    const out = await wfctl('logout', '--json');
    expect(out.json).toMatchObject({ signedOut: true, revoked: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))[service.origin]).toBeUndefined();
    // The grant is gone: the access token no longer opens the API.
    expect((await fetch(`${service.origin}/v1/users/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    expect((await wfctl('whoami', '--json')).code).toBe(3);
  });
});
