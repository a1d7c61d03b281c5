import { describe, expect } from 'vitest';
import { serviceTestWith } from '../helpers/service-test.js';
import { addMember, createTeam, tokenOfLink, userIdOf, verifyEmail } from './helpers.js';

/** The user ids of the four people. */
interface Ids {
  alice: string;
  bob: string;
  carol: string;
  dave: string;
}

const test = serviceTestWith({ PUBLIC_BASE_URL: 'http://127.0.0.1/v1' }).extend<{ ids: Ids }>({
  ids: [
    async ({ service: t, alice, bob, carol, dave }, use) =>
      use({
        alice: await userIdOf(t, alice),
        bob: await userIdOf(t, bob),
        carol: await userIdOf(t, carol),
        dave: await userIdOf(t, dave),
      }),
    { scope: 'file' },
  ],
});

/** Teams, members and roles, through REST and GraphQL, on a service that sends no mail. */
describe('teams and their members', () => {
  test('creates a team with the caller as owner and lists the caller’s teams with their role', async ({ service: t, alice, dave, ids }) => {
    const created = await t.call('POST', '/v1/teams', { token: alice, body: { name: '  Search squad  ' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Search squad', role: 'owner', billingOwnerId: ids.alice });
    expect(created.body.data.teamId).toMatch(/^team_/);
    const mine = await t.call('GET', '/v1/teams', { token: alice });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toContainEqual(expect.objectContaining({ teamId: created.body.data.teamId, role: 'owner' }));
    expect(mine.body.pagination).toMatchObject({ hasMore: false });
    expect((await t.call('GET', '/v1/teams', { token: dave })).body.data).toEqual([]);
  });

  test('refuses an empty or too long name, and no token', async ({ service: t, alice }) => {
    for (const name of ['', '   ', 'x'.repeat(101)]) {
      const res = await t.call('POST', '/v1/teams', { token: alice, body: { name } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields[0].field).toBe('name');
    }
    expect((await t.call('POST', '/v1/teams', { body: { name: 'Nobody' } })).status).toBe(401);
  });

  test('answers a team that is not yours exactly as one that does not exist', async ({ service: t, alice, dave, ids }) => {
    const teamId = await createTeam(t, alice, 'Secret-team-name');
    for (const [method, path, body] of [
      ['GET', `/v1/teams/${teamId}/members`, undefined],
      ['GET', `/v1/teams/${teamId}/invitations`, undefined],
      ['GET', `/v1/teams/${teamId}/audit-log`, undefined],
      ['POST', `/v1/teams/${teamId}/invitations`, { email: 'x@example.com', role: 'member' }],
      ['PATCH', `/v1/teams/${teamId}/members/${ids.alice}`, { role: 'member' }],
      ['DELETE', `/v1/teams/${teamId}/members/${ids.alice}`, undefined],
      ['PUT', `/v1/teams/${teamId}/billing-owner`, { userId: ids.dave }],
    ] as const) {
      const hidden = await t.call(method, path, { token: dave, body });
      const unknown = await t.call(method, path.replace(teamId, 'team_00000000000000000000'), { token: dave, body });
      expect(hidden.status, `${method} ${path}`).toBe(404);
      expect(hidden.body.error.message.replace(teamId, 'ID')).toBe(unknown.body.error.message.replace('team_00000000000000000000', 'ID'));
      expect(hidden.text).not.toContain('Secret-team-name');
    }
  });

  test('lets owners and admins manage members, and refuses members', async ({ service: t, alice, bob, carol, ids }) => {
    const teamId = await createTeam(t, alice, 'Managed');
    await addMember(t, alice, teamId, { token: bob, email: 'bob@example.com' }, 'admin');
    await addMember(t, bob, teamId, { token: carol, email: 'carol@example.com' }, 'member');
    // A member manages nothing.
    const invite = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: carol,
      body: { email: 'x@example.com', role: 'member' },
    });
    expect(invite.status).toBe(403);
    expect(invite.body.error.code).toBe('FORBIDDEN');
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.bob}`, { token: carol, body: { role: 'member' } })).status).toBe(403);
    expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.bob}`, { token: carol })).status).toBe(403);
    expect((await t.call('GET', `/v1/teams/${teamId}/invitations`, { token: carol })).status).toBe(403);
    // Members see the members.
    const members = await t.call('GET', `/v1/teams/${teamId}/members`, { token: carol });
    expect(members.status).toBe(200);
    expect(members.body.data).toHaveLength(3);
    // An admin changes a member's role, but cannot make an owner or touch an owner.
    const promoted = await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.carol}`, { token: bob, body: { role: 'admin' } });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.data).toMatchObject({ userId: ids.carol, role: 'admin', email: 'carol@example.com' });
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.carol}`, { token: bob, body: { role: 'owner' } })).status).toBe(403);
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.alice}`, { token: bob, body: { role: 'member' } })).status).toBe(403);
    expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.alice}`, { token: bob })).status).toBe(403);
    // A wrong role, an unknown member.
    for (const role of ['superuser', 'Owner', '']) {
      const res = await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.carol}`, { token: alice, body: { role } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('role');
    }
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.dave}`, { token: alice, body: { role: 'admin' } })).status).toBe(404);
    // An admin removes a member; the removed person no longer sees the team.
    const removed = await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.carol}`, { token: bob });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toEqual({ teamId, userId: ids.carol, deleted: true });
    expect((await t.call('GET', `/v1/teams/${teamId}/members`, { token: carol })).status).toBe(404);
    expect((await t.call('GET', '/v1/teams', { token: carol })).body.data.map((x: { teamId: string }) => x.teamId)).not.toContain(teamId);
  });

  test('always keeps an owner: the last owner can be neither demoted nor removed, nor leave', async ({ service: t, alice, dave, ids }) => {
    const teamId = await createTeam(t, alice, 'One owner');
    await addMember(t, alice, teamId, { token: dave, email: 'dave@example.com' }, 'member');
    const demote = await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.alice}`, { token: alice, body: { role: 'admin' } });
    expect(demote.status, demote.text).toBe(409);
    expect(demote.body.error.details.reason).toBe('last_owner');
    const leave = await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.alice}`, { token: alice });
    expect(leave.status).toBe(409);
    expect(leave.body.error.details.reason).toBe('last_owner');
    // With a second owner, the billing owner still stays until billing is handed over.
    expect((await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.dave}`, { token: alice, body: { role: 'owner' } })).status).toBe(200);
    const billingOwnerLeaves = await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.alice}`, { token: alice });
    expect(billingOwnerLeaves.status).toBe(409);
    expect(billingOwnerLeaves.body.error.details.reason).toBe('billing_owner');
    const handed = await t.call('PUT', `/v1/teams/${teamId}/billing-owner`, { token: alice, body: { userId: ids.dave } });
    expect(handed.status, handed.text).toBe(200);
    expect(handed.body.data.billingOwnerId).toBe(ids.dave);
    const left = await t.call('DELETE', `/v1/teams/${teamId}/members/${ids.alice}`, { token: alice });
    expect(left.status, left.text).toBe(200);
    // Dave is now the only owner.
    const daveDemoted = await t.call('PATCH', `/v1/teams/${teamId}/members/${ids.dave}`, { token: dave, body: { role: 'member' } });
    expect(daveDemoted.status).toBe(409);
  });

  test('hands billing only to an owner, and only owners hand it', async ({ service: t, alice, bob, ids }) => {
    const teamId = await createTeam(t, alice, 'Billing');
    await addMember(t, alice, teamId, { token: bob, email: 'bob@example.com' }, 'admin');
    const toAdmin = await t.call('PUT', `/v1/teams/${teamId}/billing-owner`, { token: alice, body: { userId: ids.bob } });
    expect(toAdmin.status).toBe(409);
    expect(toAdmin.body.error.details.reason).toBe('not_an_owner');
    const byAdmin = await t.call('PUT', `/v1/teams/${teamId}/billing-owner`, { token: bob, body: { userId: ids.bob } });
    expect(byAdmin.status).toBe(403);
  });

  test('serves the same through GraphQL', async ({ service: t, alice, bob, dave, ids }) => {
    const created = await t.graphql('mutation { createTeam(name: "Graph team") { teamId name role } }', {}, alice);
    expect(created.body.errors).toBeUndefined();
    const teamId = created.body.data.createTeam.teamId as string;
    expect(created.body.data.createTeam).toMatchObject({ name: 'Graph team', role: 'owner' });
    await verifyEmail(t, 'bob@example.com');
    const invited = await t.graphql(
      'mutation($teamId: String!) { inviteTeamMember(teamId: $teamId, email: "bob@example.com", role: "member") { invitationId emailSent acceptUrl } }',
      { teamId },
      alice,
    );
    expect(invited.body.errors).toBeUndefined();
    expect(invited.body.data.inviteTeamMember.emailSent).toBe(false);
    const token = tokenOfLink(invited.body.data.inviteTeamMember.acceptUrl);
    const accepted = await t.graphql('mutation($token: String!) { acceptTeamInvitation(token: $token) { teamId role } }', { token }, bob);
    expect(accepted.body.data.acceptTeamInvitation).toEqual({ teamId, role: 'member' });
    const bad = await t.graphql(
      'mutation($teamId: String!, $userId: String!) { updateTeamMember(teamId: $teamId, userId: $userId, role: "superuser") { role } }',
      { teamId, userId: ids.bob },
      alice,
    );
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const members = await t.graphql('query($teamId: String!) { teamMembers(teamId: $teamId) { data { userId role } } }', { teamId }, bob);
    expect(members.body.data.teamMembers.data).toHaveLength(2);
    const outsider = await t.graphql('query($teamId: String!) { teamMembers(teamId: $teamId) { data { userId } } }', { teamId }, dave);
    expect(outsider.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const removed = await t.graphql(
      'mutation($teamId: String!, $userId: String!) { removeTeamMember(teamId: $teamId, userId: $userId) { deleted } }',
      { teamId, userId: ids.bob },
      bob,
    );
    expect(removed.body.data.removeTeamMember.deleted).toBe(true);
  });
});
