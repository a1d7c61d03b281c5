import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenOfLink, verifyEmail } from '../teams/helpers.js';
import { buildCli, runCli, startService, tempHome, type RunningService } from './cli.js';

/** wfctl teams and wfctl audit-log (docs/cli.md) through the built command line, signed in with API keys. */
describe('wfctl teams and audit-log', { timeout: 120_000 }, () => {
  let service: RunningService;
  let home: ReturnType<typeof tempHome>;
  let owner: Record<string, string>;
  let bobToken: string;

  async function apiKeyOf(token: string): Promise<string> {
    const made = await service.t.call('POST', '/v1/api-keys', { token, body: { name: 'CLI test', scope: 'api' } });
    expect(made.status, made.text).toBe(201);
    return made.body.data.secret as string;
  }

  beforeAll(async () => {
    buildCli();
    service = await startService();
    home = tempHome();
    const aliceToken = await service.t.token('alice@example.com');
    bobToken = await service.t.token('bob@example.com');
    owner = { ...home.env, WFCTL_SERVICE: service.origin, WFCTL_API_KEY: await apiKeyOf(aliceToken) };
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    home?.remove();
  });

  const wfctl = (...args: string[]) => runCli(args, { env: owner });

  it('creates a team, invites, lists members, changes a role, removes, and reads the filtered log', async () => {
    const made = await wfctl('teams', 'create', 'Platform', '--json');
    expect(made.code, made.stdout).toBe(0);
    const teamId = made.json.teamId as string;
    const listed = await wfctl('teams');
    expect(listed.stdout).toContain(`${teamId}  owner   Platform`);

    const invited = await wfctl('teams', 'invite', teamId, 'bob@example.com', '--role', 'admin');
    expect(invited.code, invited.stderr).toBe(0);
    const link = /pass on the link yourself: (\S+)/.exec(invited.stdout)![1]!;
    await verifyEmail(service.t, 'bob@example.com');
    const accepted = await service.t.call('POST', `/v1/invitations/${tokenOfLink(link)}/accept`, { token: bobToken, body: {} });
    expect(accepted.status, accepted.text).toBe(200);

    const members = await wfctl('teams', 'members', teamId, '--json');
    const bob = members.json.members.find((m: { email: string }) => m.email === 'bob@example.com');
    expect(bob).toMatchObject({ role: 'admin' });
    const dry = await wfctl('teams', 'role', teamId, bob.userId, 'member', '--dry-run', '--json');
    expect(dry.json).toMatchObject({ dryRun: true, from: 'admin', to: 'member' });
    expect((await wfctl('teams', 'role', teamId, bob.userId, 'member', '--json')).json).toMatchObject({ role: 'member' });

    const log = await wfctl('audit-log', '--team', teamId, '--action', 'member.role_changed', '--json');
    expect(log.code, log.stdout).toBe(0);
    expect(log.json.entries).toEqual([
      expect.objectContaining({ action: 'member.role_changed', details: { from: 'admin', to: 'member' } }),
    ]);
    const csv = await wfctl('audit-log', '--team', teamId, '--csv', '--action', 'member.joined');
    expect(csv.code).toBe(0);
    expect(csv.stdout.trimEnd().split('\r\n')).toHaveLength(2);
    expect(csv.stdout).toContain('"member.joined"');

    const removed = await wfctl('teams', 'remove', teamId, bob.userId);
    expect(removed.stdout).toContain(`removed ${bob.userId}`);
    expect((await wfctl('audit-log', '--json')).json.entries[0]).toMatchObject({ action: 'api_key.created' });
  });

  it('says in one line what is wrong with bad input, and exits non-zero', async () => {
    const team = (await wfctl('teams', 'create', 'Second', '--json')).json.teamId as string;
    const cases: Array<[string[], number, RegExp]> = [
      [['teams', 'invite', team, 'x@example.com', '--role', 'owner'], 2, /Allowed choices are admin, member/],
      [['teams', 'role', team, 'usr_x', 'boss'], 2, /Allowed choices are owner, admin, member/],
      [['teams', 'create'], 2, /missing required argument 'name'/],
      [['teams', 'invite', team, 'not-an-address'], 4, /email/],
      [['teams', 'members', 'team_unknown'], 6, /not found/],
      [['teams', 'remove', team, 'usr_unknown', '--dry-run'], 6, /usr_unknown is not a member/],
      [['audit-log', '--since', 'yesterday'], 4, /since must be an ISO 8601/],
      [['audit-log', '--team', team, '--action', 'member.joind'], 4, /action must be one of/],
      [['audit-log', '--limit', '0'], 2, /--limit must be a whole number from 1 to 100/],
    ];
    for (const [args, code, message] of cases) {
      const run = await wfctl(...args);
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });
});
