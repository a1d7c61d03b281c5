import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/process.js';
import { sampleManifest } from '../helpers/workflows.js';
import { buildCli, runCli, startService, tempHome, type RunningService } from './cli.js';

/**
 * The built wfctl when the address does not answer as the service: a stopped service never reads as
 * a push that had nothing to do, and another web server is named as such, not as a wrong id.
 */
describe('wfctl against a stopped service or another web server', { timeout: 180_000 }, () => {
  let service: RunningService | null = null;
  let home: ReturnType<typeof tempHome>;
  let stranger: Server;
  let strangerOrigin: string;
  let strangerStatus = 404;
  let apiKey: string;
  let origin: string;

  beforeAll(async () => {
    buildCli();
    service = await startService();
    origin = service.origin;
    home = tempHome();
    const token = await service.t.token('stopped@example.com');
    const made = await service.t.call('POST', '/v1/workflows', { token, body: { name: 'Kept', manifest: sampleManifest() } });
    expect(made.status).toBe(201);
    const key = await service.t.call('POST', '/v1/api-keys', { token, body: { name: 'CI', scope: 'api' } });
    apiKey = key.body.data.secret;
    // A web server that is not the service: every path is a page, 404 or (a single-page app) 200.
    const port = await freePort();
    strangerOrigin = `http://127.0.0.1:${port}`;
    stranger = createServer((_request, response) => {
      response.writeHead(strangerStatus, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Not found</title><p>Nothing here.</p>');
    });
    await new Promise<void>((done) => stranger.listen(port, '127.0.0.1', done));
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    await new Promise<void>((done) => (stranger ? stranger.close(() => done()) : done()));
    home?.remove();
  });

  const wfctl = (serviceOrigin: string, ...args: string[]) =>
    runCli(args, { env: { ...home.env, WFCTL_SERVICE: serviceOrigin, WFCTL_API_KEY: apiKey } });

  it('push with every file unchanged fails with exit 7 once the service is stopped', async () => {
    const dir = join(home.home, 'kept');
    expect((await wfctl(origin, 'pull', '--dir', dir, '--json')).code).toBe(0);
    const running = await wfctl(origin, 'push', '--dir', dir);
    expect(running.code).toBe(0);
    expect(running.stdout).toContain('0 created, 0 updated, 1 unchanged');

    await service!.close();
    service = null;
    const stopped = await wfctl(origin, 'push', '--dir', dir);
    expect(stopped.code).toBe(7);
    expect(stopped.stdout).not.toContain('unchanged');
    expect(stopped.stderr).toContain(`the service at ${origin} could not be reached`);
    expect(stopped.stderr).toContain('that the service is running');
    const json = await wfctl(origin, 'push', '--dir', dir, '--json');
    expect(json.code).toBe(7);
    expect(json.json.error.code).toBe('SERVICE_UNREACHABLE');
    // A dry run reads the service too.
    expect((await wfctl(origin, 'push', '--dir', dir, '--dry-run', '--json')).code).toBe(7);
  });

  it('pull from a web server that is not the service says so, with the --service hint, not "Check the id"', async () => {
    const dir = join(home.home, 'elsewhere');
    mkdirSync(dir, { recursive: true });
    for (const status of [404, 200]) {
      strangerStatus = status;
      const address = strangerOrigin;
      const human = await wfctl(address, 'pull', '--dir', dir);
      expect(human.code).toBe(7);
      expect(human.stderr).toContain(`${address} does not answer as the workflow service (it answered ${status} with text/html`);
      expect(human.stderr).toContain('text/html');
      expect(human.stderr).toContain('--service');
      expect(human.stderr).not.toContain('Check the id');
      const json = await wfctl(address, 'pull', '--dir', dir, '--json');
      expect(json.code).toBe(7);
      expect(json.json.error).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    }
  });
});
