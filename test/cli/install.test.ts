import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHome, ensureAgentClients } from '../agents/clients.js';
import { seedDeployment, startAgentService, type AgentDeployment, type AgentService } from '../agents/service.js';
import { buildCli, runCli, tempHome } from './cli.js';

/**
 * `wfctl install` and `wfctl doctor`, the built command line run as a process against the service
 * on a loopback port: the files of each agent client in a temporary HOME, merged into what was
 * there; then the real Claude Code, Gemini CLI and Codex (agent-clients/, installed from its lock
 * file when missing) connect with what was written. Doctor names each broken configuration.
 */

const SERVER = 'everything';
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('wfctl install and doctor', { timeout: 300_000 }, () => {
  let service: AgentService;
  let deployment: AgentDeployment;
  let apiKey: string;
  let home: AgentHome;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildCli();
    await ensureAgentClients();
    service = await startAgentService();
    deployment = await seedDeployment(service.t);
    const key = await service.t.call('POST', '/v1/api-keys', { token: deployment.token, body: { name: 'wfctl', scope: 'api' } });
    apiKey = key.body.data.secret;
    // The user's machine: Claude Code, Gemini CLI and Codex on PATH (agent-clients/), Cursor's and
    // Windsurf's folders; VS Code and Claude Desktop absent. Files already hold settings of their own.
    home = new AgentHome();
    mkdirSync(join(home.home, '.cursor'));
    writeFileSync(
      join(home.home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { other: { url: 'http://127.0.0.1:9/mcp' } }, someSetting: true }, null, 2),
    );
    writeFileSync(
      join(home.home, '.claude.json'),
      JSON.stringify({ numStartups: 3, mcpServers: { other: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }),
    );
    mkdirSync(join(home.home, '.codeium', 'windsurf'), { recursive: true });
    env = home.environment({ WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey, GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  }, 600_000);

  afterAll(async () => {
    await home?.close();
    await service?.close();
  });

  const wfctl = (...args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
  const read = (...path: string[]) => readFileSync(join(home.home, ...path), 'utf8');

  it('install --client all writes every client found, keeps what the files held, and the real clients connect', async () => {
    expect(statSync(join(home.home, '.claude.json')).mode & 0o777).toBe(0o644);
    const result = await wfctl('install', deployment.deploymentId, '--client', 'all', '--json');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.json.apiKey).toMatchObject({ source: 'created', keyId: expect.any(String) });
    // A file that now holds a key is readable by its owner only, whatever mode it had.
    for (const file of [['.claude.json'], ['.cursor', 'mcp.json']]) expect(statSync(join(home.home, ...file)).mode & 0o777).toBe(0o600);
    expect(result.json.skipped).toEqual(['vscode', 'vscode-insiders', 'claude-desktop']);
    expect(Object.fromEntries(result.json.clients.map((c: any) => [c.client, c.action]))).toEqual({
      'claude-code': 'update',
      cursor: 'update',
      windsurf: 'create',
      'gemini-cli': 'update',
      codex: 'update',
    });
    // The key is never printed.
    const keys = await service.t.call('GET', '/v1/api-keys', { token: deployment.token });
    const made = keys.body.data.find((k: any) => k.keyId === result.json.apiKey.keyId);
    // Named for where it was made: this machine's wfctl, then the deployment.
    expect(made).toMatchObject({ scope: 'mcp', deploymentIds: [deployment.deploymentId], name: `wfctl on ${hostname()}: Everything` });
    expect(result.json.apiKey.name).toBe(made.name);
    expect(result.stdout).not.toContain('Created the API key');
    expect(result.stdout).toContain('<API_KEY>');

    const claude = JSON.parse(read('.claude.json'));
    expect(claude.numStartups).toBe(3);
    expect(claude.mcpServers.other).toEqual({ type: 'http', url: 'http://127.0.0.1:9/mcp' });
    expect(claude.mcpServers[SERVER]).toMatchObject({
      type: 'http',
      url: deployment.endpoint,
      headers: { Authorization: expect.stringMatching(/^Bearer wfk_/) },
    });
    const secret = claude.mcpServers[SERVER].headers.Authorization.slice('Bearer '.length);
    expect(result.stdout).not.toContain(secret);

    const cursor = JSON.parse(read('.cursor', 'mcp.json'));
    expect(cursor).toMatchObject({ someSetting: true, mcpServers: { other: { url: 'http://127.0.0.1:9/mcp' } } });
    expect(cursor.mcpServers[SERVER]).toEqual({ url: `${service.origin}/v1/install/${deployment.deploymentId}/${secret}/mcp` });
    const windsurf = JSON.parse(read('.codeium', 'windsurf', 'mcp_config.json'));
    expect(windsurf.mcpServers[SERVER]).toEqual({ serverUrl: deployment.endpoint, headers: { Authorization: `Bearer ${secret}` } });
    const gemini = JSON.parse(read('.gemini', 'settings.json'));
    expect(gemini.privacy).toEqual({ usageStatisticsEnabled: false });
    expect(gemini.mcpServers[SERVER]).toEqual({ httpUrl: deployment.endpoint, headers: { Authorization: `Bearer ${secret}` } });
    const codexText = read('.codex', 'config.toml');
    const codex = parseToml(codexText) as any;
    expect(codex.check_for_update_on_startup).toBe(false);
    expect(codex.analytics).toEqual({ enabled: false });
    expect(codex.mcp_servers[SERVER]).toEqual({ url: `${service.origin}/v1/install/${deployment.deploymentId}/${secret}/mcp` });
    // Files that may hold a key are the user's alone.
    expect((await import('node:fs')).statSync(join(home.home, '.codeium', 'windsurf', 'mcp_config.json')).mode & 0o777).toBe(0o600);

    const claudeList = await home.run('claude', ['mcp', 'list']);
    expect(claudeList.output).toMatch(new RegExp(`${SERVER}: ${literal(deployment.endpoint)} \\(HTTP\\) - ✔ Connected`));
    const geminiList = await home.run('gemini', ['mcp', 'list'], { env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } });
    expect(geminiList.output).toMatch(new RegExp(`✓ ${SERVER}: ${literal(deployment.endpoint)} \\(http\\) - Connected`));
    const codexStatus = await home.codexMcpServerStatus();
    const ours = codexStatus.find((s) => s.name === SERVER);
    expect(ours?.toolsError ?? null).toBeNull();
    expect(Object.keys(ours?.tools ?? {}).length).toBeGreaterThan(0);
  });

  /** The files `install --client all` writes, under the home folder. */
  const CLIENT_FILES = [
    '.claude.json',
    '.cursor/mcp.json',
    '.codeium/windsurf/mcp_config.json',
    '.gemini/settings.json',
    '.codex/config.toml',
  ];

  it('running install again changes nothing: the key already configured is kept', async () => {
    const before = CLIENT_FILES.map((p) => read(p));
    const again = await wfctl('install', deployment.deploymentId, '--client', 'all', '--json');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.json.apiKey).toMatchObject({ source: 'reused' });
    expect(again.json.clients.map((c: any) => c.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    const after = CLIENT_FILES.map((p) => read(p));
    expect(after).toEqual(before);
  });

  it('--dry-run shows the entry and writes nothing; a named client is installed even when not found', async () => {
    const vscodeFile = join(home.home, '.config', 'Code', 'User', 'mcp.json');
    const dry = await wfctl('install', deployment.deploymentId, '--client', 'vscode', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("VS Code: would create ~/.config/Code/User/mcp.json (server 'everything')");
    expect(dry.stdout).toContain('"Authorization": "Bearer <API_KEY>"');
    expect(existsSync(vscodeFile)).toBe(false);
    const real = await wfctl('install', deployment.deploymentId, '--client', 'vscode,claude-desktop', '--json');
    expect(real.code, real.stdout).toBe(0);
    expect(JSON.parse(readFileSync(vscodeFile, 'utf8')).servers[SERVER]).toMatchObject({ type: 'http', url: deployment.endpoint });
    // --oauth: no key; the client signs in itself.
    const oauth = await wfctl('install', deployment.deploymentId, '--client', 'cursor', '--oauth', '--dry-run', '--json');
    expect(oauth.code, oauth.stdout).toBe(0);
    expect(oauth.json).toMatchObject({ auth: 'oauth', apiKey: null });
    expect(oauth.json.clients[0]).toMatchObject({ action: 'update', entry: { url: deployment.endpoint } });
    // A key given that the endpoint refuses is not written anywhere.
    const wrongKey = await wfctl(
      'install',
      deployment.deploymentId,
      '--client',
      'vscode',
      '--api-key',
      'wfk_notarealkey000000000000000000000000',
      '--json',
    );
    expect(wrongKey.code).toBe(3);
    expect(wrongKey.json.error).toMatchObject({ code: 'UNAUTHORIZED' });
    const desktop = real.json.clients.find((c: any) => c.client === 'claude-desktop');
    expect(desktop).toMatchObject({ action: 'manual', path: null });
    expect(desktop.steps.join('\n')).toContain(deployment.endpoint);
  });

  it('doctor on the good configuration exits 0, every server connected', async () => {
    const good = await wfctl('doctor', deployment.deploymentId, '--json');
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(good.json.ok).toBe(true);
    const servers = good.json.clients.flatMap((c: any) => c.servers.map((s: any) => [c.client, s.connected]));
    expect(servers).toEqual([
      ['claude-code', true],
      ['cursor', true],
      ['vscode', true],
      ['windsurf', true],
      ['gemini-cli', true],
      ['codex', true],
    ]);
    const human = await wfctl('doctor');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('No problem found.');
  });

  it('doctor on a broken configuration exits 9 and names each problem with what to do', async () => {
    const broken = tempHome();
    try {
      const h = broken.home;
      // Claude Code: a wrong key, and an OAuth sign-in stored for the same server.
      writeFileSync(
        join(h, '.claude.json'),
        JSON.stringify({
          mcpServers: {
            [SERVER]: {
              type: 'http',
              url: deployment.endpoint,
              headers: { Authorization: 'Bearer wfk_notarealkey000000000000000000000000' },
            },
          },
        }),
      );
      mkdirSync(join(h, '.claude'));
      writeFileSync(
        join(h, '.claude', '.credentials.json'),
        JSON.stringify({ mcpOAuth: { [`${SERVER}|0123456789abcdef`]: { serverName: SERVER, accessToken: 'stored' } } }),
      );
      // Cursor: a valid key in a header on the endpoint that offers OAuth, which Cursor ignores.
      const claudeKey = JSON.parse(read('.claude.json')).mcpServers[SERVER].headers.Authorization;
      mkdirSync(join(h, '.cursor'));
      writeFileSync(
        join(h, '.cursor', 'mcp.json'),
        JSON.stringify({ mcpServers: { [SERVER]: { url: deployment.endpoint, headers: { Authorization: claudeKey } } } }),
      );
      // Gemini CLI: a file that does not parse. Windsurf: no entry for the deployment.
      mkdirSync(join(h, '.gemini'));
      writeFileSync(join(h, '.gemini', 'settings.json'), '{ "mcpServers": { ');
      mkdirSync(join(h, '.codeium', 'windsurf'), { recursive: true });
      writeFileSync(join(h, '.codeium', 'windsurf', 'mcp_config.json'), '{"mcpServers": {}}');
      const brokenEnv = { ...broken.env, WFCTL_SERVICE: service.origin, PATH: env.PATH!.split(':').slice(1).join(':') };

      const result = await runCli(['doctor', deployment.deploymentId, '--json'], { env: brokenEnv, timeoutMs: 60_000 });
      expect(result.code, result.stdout + result.stderr).toBe(9);
      const byClient = Object.fromEntries(
        result.json.clients.map((c: any) => [
          c.client,
          [...c.problems, ...c.servers.flatMap((s: any) => s.problems)].map((p: any) => p.code),
        ]),
      );
      expect(byClient).toEqual({
        'claude-code': ['UNAUTHORIZED', 'HEADER_OAUTH_CONFLICT'],
        cursor: ['HEADER_OAUTH_CONFLICT'],
        windsurf: ['ENTRY_MISSING'],
        'gemini-cli': ['INVALID_FILE'],
      });
      const human = await runCli(['doctor', deployment.deploymentId], { env: brokenEnv, timeoutMs: 60_000 });
      expect(human.code).toBe(9);
      expect(human.stdout).toContain('401 UNAUTHORIZED');
      expect(human.stdout).toContain(`claude mcp logout ${SERVER}`);
      expect(human.stdout).toContain('Cursor ignores the Authorization header');
      expect(human.stdout).toContain(`→ Run wfctl install ${deployment.deploymentId} --client windsurf.`);
      expect(human.stdout).toContain('settings.json does not parse');
      expect(human.stdout).toContain('5 problems found.');

      // Install mends what it can and leaves the unparsable file as it was, naming it (exit 4).
      const mend = await runCli(['install', deployment.deploymentId, '--client', 'all', '--json'], {
        env: { ...brokenEnv, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey },
        timeoutMs: 60_000,
      });
      expect(mend.code, mend.stdout).toBe(4);
      expect(mend.json.error.code).toBe('INVALID_FILE');
      expect(mend.json.error.message).toContain('Gemini CLI');
      expect(readFileSync(join(h, '.gemini', 'settings.json'), 'utf8')).toBe('{ "mcpServers": { ');
      const mended = mend.json.error.details.clients.filter((c: any) => c.action === 'update').map((c: any) => c.client);
      expect(mended).toEqual(['claude-code', 'cursor', 'windsurf']);
      const after = await runCli(['doctor', deployment.deploymentId, '--client', 'cursor,windsurf', '--json'], {
        env: brokenEnv,
        timeoutMs: 60_000,
      });
      expect(after.code, after.stdout).toBe(0);
    } finally {
      broken.remove();
    }
  });

  it('an anonymous deployment is installed without a key, and doctor connects without one', async () => {
    const existing = await service.t.call('GET', `/v1/deployments/${deployment.deploymentId}`, { token: deployment.token });
    const created = await service.t.call('POST', '/v1/deployments', {
      token: deployment.token,
      body: { name: 'Open tools', workflowIds: existing.body.data.workflows.map((w: any) => w.workflowId), allowAnonymous: true },
    });
    expect(created.status, created.text).toBe(201);
    const openId = created.body.data.deploymentId;
    const bare = tempHome();
    try {
      const result = await runCli(['install', openId, '--client', 'cursor,gemini-cli', '--json'], {
        env: { ...bare.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey },
      });
      expect(result.code, result.stdout).toBe(0);
      expect(result.json).toMatchObject({ auth: 'none', apiKey: null, serverName: 'open-tools' });
      expect(JSON.parse(readFileSync(join(bare.home, '.cursor', 'mcp.json'), 'utf8'))).toEqual({
        mcpServers: { 'open-tools': { url: created.body.data.mcpEndpoint } },
      });
      const checked = await runCli(['doctor', openId, '--json'], {
        env: { ...bare.env, WFCTL_SERVICE: service.origin, PATH: '/usr/bin:/bin' },
      });
      expect(checked.code, checked.stdout).toBe(0);
      expect(checked.json.clients.map((c: any) => [c.client, c.servers[0].connected, c.servers[0].credential])).toEqual([
        ['cursor', true, 'none'],
        ['gemini-cli', true, 'none'],
      ]);
    } finally {
      bare.remove();
    }
  });

  it('doctor reads only the key variable an install writes, and contacts only the service it works with', async () => {
    const requests: string[] = [];
    const listener = createServer((req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const foreign = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const planted = tempHome();
    try {
      writeFileSync(
        join(planted.home, '.claude.json'),
        JSON.stringify({
          mcpServers: {
            // Another host, with a header that names a shell variable: neither read nor contacted.
            elsewhere: {
              type: 'http',
              url: `${foreign}/v1/mcp/${deployment.deploymentId}`,
              headers: { Authorization: 'Bearer ${AWS_SECRET_ACCESS_KEY}' },
            },
            // The service itself, but a variable that is not this server's key variable: not read.
            [SERVER]: { type: 'http', url: deployment.endpoint, headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } },
          },
        }),
      );
      const result = await runCli(['doctor', deployment.deploymentId, '--client', 'claude-code', '--json'], {
        env: {
          ...planted.env,
          WFCTL_SERVICE: service.origin,
          PATH: '/usr/bin:/bin',
          AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
          GITHUB_TOKEN: 'ghp_secretvalue',
        },
        timeoutMs: 60_000,
      });
      expect(result.code, result.stdout).toBe(9);
      const servers = Object.fromEntries(result.json.clients[0].servers.map((s: any) => [s.name, s]));
      expect(servers.elsewhere.connected).toBe(false);
      expect(servers.elsewhere.notes.join(' ')).toContain('it was not contacted');
      expect(servers[SERVER].problems.map((p: any) => p.code)).toEqual(['ENV_VAR_NOT_READ']);
      expect(servers[SERVER].problems[0].message).toContain('EVERYTHING_API_KEY');
      expect(result.stdout).not.toContain('aws-secret-value');
      expect(result.stdout).not.toContain('ghp_secretvalue');
      expect(requests).toEqual([]);
    } finally {
      planted.remove();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('a configuration kept behind a symlink is written where the link points, and the link stays', async () => {
    const linked = tempHome();
    try {
      mkdirSync(join(linked.home, 'dotfiles'));
      writeFileSync(join(linked.home, 'dotfiles', 'cursor-mcp.json'), '{"mcpServers":{}}');
      mkdirSync(join(linked.home, '.cursor'));
      symlinkSync(join(linked.home, 'dotfiles', 'cursor-mcp.json'), join(linked.home, '.cursor', 'mcp.json'));
      const result = await runCli(['install', deployment.deploymentId, '--client', 'cursor', '--json'], {
        env: { ...linked.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey },
      });
      expect(result.code, result.stdout).toBe(0);
      expect(lstatSync(join(linked.home, '.cursor', 'mcp.json')).isSymbolicLink()).toBe(true);
      const real = join(linked.home, 'dotfiles', 'cursor-mcp.json');
      expect(Object.keys(JSON.parse(readFileSync(real, 'utf8')).mcpServers)).toEqual([SERVER]);
      expect(statSync(real).mode & 0o777).toBe(0o600);
    } finally {
      linked.remove();
    }
  });

  it('bad inputs: unknown client, unknown deployment, another user’s deployment, no credential, a taken server name', async () => {
    const unknownClient = await wfctl('install', deployment.deploymentId, '--client', 'emacs', '--json');
    expect(unknownClient.code).toBe(2);
    expect(unknownClient.json.error).toMatchObject({ code: 'USAGE' });
    expect(unknownClient.json.error.hint).toContain('claude-code, cursor');
    expect((await wfctl('install', deployment.deploymentId, '--json')).code).toBe(2);
    expect((await wfctl('doctor', '--client', 'emacs')).code).toBe(2);

    const unknownDeployment = await wfctl('install', 'dep_doesnotexist', '--client', 'cursor', '--json');
    expect(unknownDeployment.code).toBe(6);
    expect(unknownDeployment.json.error.code).toBe('NOT_FOUND');

    const stranger = await service.t.token('stranger@example.com');
    const strangerKey = (await service.t.call('POST', '/v1/api-keys', { token: stranger, body: { name: 'wfctl', scope: 'api' } })).body.data
      .secret;
    const other = await runCli(['install', deployment.deploymentId, '--client', 'cursor', '--json'], {
      env: { ...env, WFCTL_API_KEY: strangerKey },
    });
    expect(other.code).toBe(6);
    expect(other.json.error.code).toBe('NOT_FOUND');

    const bare = tempHome();
    try {
      const none = await runCli(['install', deployment.deploymentId, '--client', 'cursor', '--json'], {
        env: { ...bare.env, WFCTL_SERVICE: service.origin },
      });
      expect(none.code).toBe(3);
      expect(none.json.error.code).toBe('NOT_SIGNED_IN');
      expect(existsSync(join(bare.home, '.cursor'))).toBe(false);

      // A server of the same name that is not this deployment is left alone.
      mkdirSync(join(bare.home, '.cursor'));
      writeFileSync(
        join(bare.home, '.cursor', 'mcp.json'),
        JSON.stringify({ mcpServers: { [SERVER]: { url: 'http://127.0.0.1:9/mcp' } } }),
      );
      const taken = await runCli(['install', deployment.deploymentId, '--client', 'cursor', '--json'], {
        env: { ...bare.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: apiKey },
      });
      expect(taken.code).toBe(5);
      expect(taken.json.error.message).toContain(`already has a server named '${SERVER}'`);
      const nothing = await runCli(['doctor', '--json'], { env: { ...bare.env, PATH: '/usr/bin:/bin' } });
      expect(nothing.code).toBe(9);
      expect(nothing.json.general[0].code).toBe('NOTHING_INSTALLED');
    } finally {
      bare.remove();
    }
  });
});
