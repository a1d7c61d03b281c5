import { describe, expect } from 'vitest';
import { csvCell } from '../../src/teams/audit.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { addMember, createTeam, userIdOf } from './helpers.js';

/**
 * A team made by Alice, with the history its log shows: Bob joined as a member, Carol as an admin,
 * Bob made an admin, an invitation of an address beginning with "=" made and revoked, Bob removed.
 */
interface Audited {
  teamId: string;
  aliceId: string;
  bobId: string;
}

const test = serviceTestWith({ PUBLIC_BASE_URL: 'http://127.0.0.1/v1' }).extend<{ world: Audited }>({
  world: [
    async ({ service: t, alice, bob, carol }, use) => {
      const aliceId = await userIdOf(t, alice);
      const teamId = await createTeam(t, alice, 'Audited');
      const bobId = await addMember(t, alice, teamId, { token: bob, email: 'bob@example.com' }, 'member');
      await addMember(t, alice, teamId, { token: carol, email: 'carol@example.com' }, 'admin');
      expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${bobId}`, { token: alice, body: { role: 'admin' } })).status).toBe(200);
      const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
        token: alice,
        body: { email: '=cmd@example.com', role: 'member' },
      });
      expect(invited.status, invited.text).toBe(201);
      const revoked = await t.call('DELETE', `/v1/teams/${teamId}/invitations/${invited.body.data.invitationId}`, { token: alice });
      expect(revoked.status).toBe(200);
      expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${bobId}`, { token: alice })).status).toBe(200);
      await use({ teamId, aliceId, bobId });
    },
    { scope: 'file' },
  ],
});

/** The team's audit log and each person's own (docs/teams.md, "Audit log"). */
describe('audit logs', () => {
  test('records who did what to whom, newest first, for owners and admins', async ({
    service: t,
    alice,
    bob,
    carol,
    world: { teamId, aliceId, bobId },
  }) => {
    const log = await t.call('GET', `/v1/teams/${teamId}/audit-log`, { token: alice });
    expect(log.status, log.text).toBe(200);
    const actions = log.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual([
      'member.removed',
      'invitation.revoked',
      'member.invited',
      'member.role_changed',
      'member.joined',
      'member.invited',
      'member.joined',
      'member.invited',
      'team.created',
    ]);
    expect(log.body.data[0]).toMatchObject({ actorUserId: aliceId, targetType: 'user', targetId: bobId, details: { reason: 'removed' } });
    expect(log.body.data[3]).toMatchObject({ action: 'member.role_changed', details: { from: 'member', to: 'admin' } });
    expect(log.body.data[0].at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Carol is an admin: she reads it too. Bob, removed, does not.
    expect((await t.call('GET', `/v1/teams/${teamId}/audit-log`, { token: carol })).status).toBe(200);
    expect((await t.call('GET', `/v1/teams/${teamId}/audit-log`, { token: bob })).status).toBe(404);
  });

  test('pages with a cursor and refuses a cursor of another list', async ({ service: t, alice, world: { teamId } }) => {
    const first = await t.call('GET', `/v1/teams/${teamId}/audit-log?limit=4`, { token: alice });
    expect(first.body.data).toHaveLength(4);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await t.call('GET', `/v1/teams/${teamId}/audit-log?limit=4&cursor=${first.body.pagination.nextCursor}`, {
      token: alice,
    });
    const third = await t.call('GET', `/v1/teams/${teamId}/audit-log?limit=4&cursor=${second.body.pagination.nextCursor}`, {
      token: alice,
    });
    const all = [...first.body.data, ...second.body.data, ...third.body.data].map((e: { entryId: string }) => e.entryId);
    expect(new Set(all).size).toBe(9);
    expect(third.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const mine = await t.call('GET', `/v1/users/me/audit-log?cursor=${first.body.pagination.nextCursor}`, { token: alice });
    expect(mine.status).toBe(400);
  });

  test('refuses a plain member', async ({ service: t, alice, dave, world: { teamId } }) => {
    const id = await addMember(t, alice, teamId, { token: dave, email: 'dave@example.com' }, 'member');
    const refused = await t.call('GET', `/v1/teams/${teamId}/audit-log`, { token: dave });
    expect(refused.status).toBe(403);
    expect((await t.call('GET', `/v1/teams/${teamId}/audit-log.csv`, { token: dave })).status).toBe(403);
    expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${id}`, { token: alice })).status).toBe(200);
  });

  test('exports CSV with cells that a spreadsheet shows rather than runs', async ({ service: t, alice, world: { teamId } }) => {
    const csv = await t.call('GET', `/v1/teams/${teamId}/audit-log.csv`, { token: alice });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,action,actorUserId,targetType,targetId,details');
    expect(lines.some((l) => l.includes('"member.invited"'))).toBe(true);
    // The invited address began with "=": its JSON cell begins with "{", and no cell begins with = + - @.
    for (const line of lines.slice(1)) for (const cell of line.match(/"(?:[^"]|"")*"/g) ?? []) expect(cell).not.toMatch(/^"[=+\-@\t\r]/);
  });

  test('guards a cell that starts with a formula character, a tab or a carriage return', () => {
    for (const risky of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(csvCell(risky)).toBe(`"'${risky}"`);
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('member.joined')).toBe('"member.joined"');
  });

  test("keeps each person's own security events: API keys made and revoked", async ({ service: t, bob, carol, world: { bobId } }) => {
    const made = await t.call('POST', '/v1/api-keys', { token: bob, body: { name: 'Laptop', scope: 'api' } });
    expect(made.status).toBe(201);
    const keyId = made.body.data.keyId as string;
    expect((await t.call('DELETE', `/v1/api-keys/${keyId}`, { token: bob })).status).toBe(200);
    const log = await t.call('GET', '/v1/users/me/audit-log', { token: bob });
    expect(log.status, log.text).toBe(200);
    expect(log.body.data.slice(0, 2)).toEqual([
      expect.objectContaining({ action: 'api_key.revoked', targetType: 'api_key', targetId: keyId, actorUserId: bobId }),
      expect.objectContaining({ action: 'api_key.created', targetType: 'api_key', targetId: keyId, actorUserId: bobId }),
    ]);
    // Nobody else's events are in it, and it holds no secret.
    expect(log.text).not.toContain(made.body.data.secret);
    const carolLog = await t.call('GET', '/v1/users/me/audit-log', { token: carol });
    expect(carolLog.text).not.toContain(keyId);
  });

  test('filters by action, actor, target type and time, in the list and the CSV', async ({
    service: t,
    alice,
    bob,
    world: { teamId, aliceId, bobId },
  }) => {
    const base = `/v1/teams/${teamId}/audit-log`;
    const invited = await t.call('GET', `${base}?action=member.invited`, { token: alice });
    expect(invited.status, invited.text).toBe(200);
    // Alice invited Bob, Carol, Dave and the revoked address.
    expect(invited.body.data.map((e: { action: string }) => e.action)).toEqual(Array(4).fill('member.invited'));
    const byBob = await t.call('GET', `${base}?actorUserId=${bobId}`, { token: alice });
    expect(byBob.body.data.map((e: { action: string }) => e.action)).toEqual(['member.joined']);
    const aboutInvitations = await t.call('GET', `${base}?targetType=invitation&actorUserId=${aliceId}`, { token: alice });
    expect(aboutInvitations.body.data.map((e: { action: string }) => e.action)).toEqual([
      'member.invited',
      'invitation.revoked',
      'member.invited',
      'member.invited',
      'member.invited',
    ]);
    const all = (await t.call('GET', base, { token: alice })).body.data as Array<{ at: string; action: string }>;
    const oldest = all[all.length - 1]!.at;
    const later = new Date(new Date(oldest).getTime() + 1).toISOString();
    const until = await t.call('GET', `${base}?until=${encodeURIComponent(later)}`, { token: alice });
    expect(until.body.data.map((e: { action: string }) => e.action)).toContain('team.created');
    const since = await t.call('GET', `${base}?since=${encodeURIComponent(later)}&action=team.created`, { token: alice });
    expect(since.body.data).toEqual([]);
    const csv = await t.call('GET', `${base}.csv?action=member.role_changed`, { token: alice });
    expect(csv.status).toBe(200);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"member.role_changed"');
    const mine = await t.call('GET', '/v1/users/me/audit-log?action=api_key.created', { token: bob });
    expect(mine.status).toBe(200);
    expect(mine.body.data.every((e: { action: string }) => e.action === 'api_key.created')).toBe(true);
  });

  test('pages through a filtered log with its cursor', async ({ service: t, alice, world: { teamId } }) => {
    const base = `/v1/teams/${teamId}/audit-log?action=member.invited&limit=3`;
    const first = await t.call('GET', base, { token: alice });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await t.call('GET', `${base}&cursor=${first.body.pagination.nextCursor}`, { token: alice });
    expect(second.body.data.map((e: { action: string }) => e.action)).toEqual(['member.invited']);
    expect(second.body.pagination.hasMore).toBe(false);
  });

  test('refuses a filter that is not valid, naming it', async ({ service: t, alice, world: { teamId } }) => {
    const bad: Array<[string, string]> = [
      ['action=member.joind', 'action'],
      ['actorUserId=%3Cscript%3E', 'actorUserId'],
      ['targetType=User%20Type', 'targetType'],
      ['since=yesterday', 'since'],
      ['since=2026-02-30', 'since'],
      ['until=2026-01-31T12:00:00', 'until'],
      ['since=2026-02-01&until=2026-01-01', 'until'],
    ];
    for (const [query, field] of bad) {
      for (const path of [
        `/v1/teams/${teamId}/audit-log?${query}`,
        `/v1/teams/${teamId}/audit-log.csv?${query}`,
        `/v1/users/me/audit-log?${query}`,
      ]) {
        const res = await t.call('GET', path, { token: alice });
        expect(res.status, `${path}: ${res.text}`).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
      }
    }
    const gql = await t.graphql('query { myAuditLogCsv(since: "soon") { body } }', {}, alice);
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });

  test('serves the logs through GraphQL', async ({ service: t, alice, world: { teamId } }) => {
    const res = await t.graphql(
      'query($teamId: String!) { teamAuditLog(teamId: $teamId, limit: 2) { data { action actorUserId targetType targetId at } pagination { hasMore } } myAuditLog { data { action } } }',
      { teamId },
      alice,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.teamAuditLog.data).toHaveLength(2);
    expect(res.body.data.teamAuditLog.pagination.hasMore).toBe(true);
  });
});
