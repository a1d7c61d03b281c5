import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { seedManifest, seedWorkflow } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';
import { sampleManifest } from '../helpers/workflows.js';
import { addMember, createTeam, userIdOf } from './helpers.js';

/**
 * The team "Platform" of its owner, with an admin, a member and an admin who leaves it later; an
 * outsider; and a second team "Other" of the same owner.
 */
interface TeamWorld {
  owner: string;
  admin: string;
  member: string;
  outsider: string;
  leaver: string;
  ownerId: string;
  adminId: string;
  leaverId: string;
  teamId: string;
  otherTeamId: string;
}

const test = serviceTest.extend<{ world: TeamWorld }>({
  world: [
    async ({ service: t }, use) => {
      const owner = await t.token('owner@example.com');
      const admin = await t.token('admin@example.com');
      const member = await t.token('member@example.com');
      const outsider = await t.token('outsider@example.com');
      const leaver = await t.token('leaver@example.com');
      const ownerId = await userIdOf(t, owner);
      const teamId = await createTeam(t, owner, 'Platform');
      const otherTeamId = await createTeam(t, owner, 'Other');
      const adminId = await addMember(t, owner, teamId, { token: admin, email: 'admin@example.com' }, 'admin');
      await addMember(t, owner, teamId, { token: member, email: 'member@example.com' }, 'member');
      const leaverId = await addMember(t, owner, teamId, { token: leaver, email: 'leaver@example.com' }, 'admin');
      await use({ owner, admin, member, outsider, leaver, ownerId, adminId, leaverId, teamId, otherTeamId });
    },
    { scope: 'file' },
  ],
});

const body = (name: string, extra: Record<string, unknown> = {}) => ({ name, manifest: sampleManifest(), ...extra });

async function teamWorkflow(t: TestApp, teamId: string, token: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.call('POST', '/v1/workflows', { token, body: body(name, { teamId, ...extra }) });
  expect(res.status, res.text).toBe(201);
  return res.body.data.workflowId as string;
}

/** The team's audit log, as its owner reads it. */
const auditOf = async (t: TestApp, owner: string, id: string) => {
  const log = await t.call('GET', `/v1/teams/${id}/audit-log?limit=100`, { token: owner });
  expect(log.status, log.text).toBe(200);
  return log.body.data as { action: string; targetType: string; targetId: string; actorUserId: string; details: any }[];
};

/**
 * Team workflows (docs/teams.md, "Team workflows"): made by a team's owners and admins, read,
 * forked and used by every member, changed by owners and admins, moved in and out, counted toward
 * the team's quota, and written in the team's audit log.
 */
describe('team workflows', () => {
  test('owners and admins create in the team; the creator stays the author; members and outsiders are refused', async ({
    service: t,
    world: { owner, admin, member, outsider, adminId, teamId },
  }) => {
    const made = await t.call('POST', '/v1/workflows', { token: admin, body: body('Team pipeline', { teamId }) });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.teamId).toBe(teamId);
    const row = await t.database.db.prisma.workflow.findUniqueOrThrow({ where: { id: made.body.data.workflowId } });
    expect(row).toMatchObject({ ownerId: adminId, teamId });

    const byMember = await t.call('POST', '/v1/workflows', { token: member, body: body('Nope', { teamId }) });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    for (const id of [teamId, 'team_unknown']) {
      const refused = await t.call('POST', '/v1/workflows', { token: outsider, body: body('Nope', { teamId: id }) });
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('NOT_FOUND');
      expect(refused.body.error.message).toContain(id);
    }
    for (const teamId of [42, '', '  ', { id: 'x' }]) {
      const wrong = await t.call('POST', '/v1/workflows', { token: owner, body: body('Nope', { teamId }) });
      expect(wrong.status, JSON.stringify(teamId)).toBe(400);
      expect(wrong.body.error.code).toBe('VALIDATION_ERROR');
      expect(wrong.text).toContain('teamId');
    }
    const create = `mutation($teamId: String, $m: JSON!) { createWorkflow(name: "By GraphQL", manifest: $m, teamId: $teamId) { workflowId teamId } }`;
    const gqlMade = await t.graphql(create, { teamId, m: sampleManifest() }, owner);
    expect(gqlMade.body.errors).toBeUndefined();
    expect(gqlMade.body.data.createWorkflow.teamId).toBe(teamId);
    const gqlMember = await t.graphql(create, { teamId, m: sampleManifest() }, member);
    expect(gqlMember.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    const gqlOutsider = await t.graphql(create, { teamId, m: sampleManifest() }, outsider);
    expect(gqlOutsider.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // Nothing was made by the refused calls.
    expect(await t.database.db.prisma.workflow.count({ where: { name: 'Nope' } })).toBe(0);
  });

  test('lists the team’s workflows for every member, apart from each person’s own list; outsiders get 404', async ({
    service: t,
    world: { owner, admin, member, outsider, teamId },
  }) => {
    const id = await teamWorkflow(t, teamId, owner, 'Listed');
    for (const token of [owner, admin, member]) {
      const list = await t.call('GET', `/v1/workflows?teamId=${teamId}`, { token });
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((w: { workflowId: string }) => w.workflowId)).toContain(id);
    }
    const personal = await t.call('GET', '/v1/workflows', { token: owner });
    expect(personal.body.data.map((w: { workflowId: string }) => w.workflowId)).not.toContain(id);
    expect((await t.call('GET', `/v1/workflows?teamId=${teamId}`, { token: outsider })).status).toBe(404);
    expect((await t.call('GET', '/v1/workflows?teamId=team_unknown', { token: owner })).status).toBe(404);

    const gql = await t.graphql(`query($teamId: String) { workflows(teamId: $teamId) { data { workflowId teamId } } }`, { teamId }, member);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.workflows.data).toContainEqual({ workflowId: id, teamId });
    const outside = await t.graphql(`query($teamId: String) { workflows(teamId: $teamId) { data { workflowId } } }`, { teamId }, outsider);
    expect(outside.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  test('every member reads, exports and forks a private team workflow; outsiders get 404', async ({
    service: t,
    world: { owner, admin, member, outsider, teamId },
  }) => {
    const id = await teamWorkflow(t, teamId, admin, 'Readable');
    for (const token of [owner, admin, member]) {
      expect((await t.call('GET', `/v1/workflows/${id}`, { token })).status).toBe(200);
      expect((await t.call('GET', `/v1/workflows/${id}/manifest?format=yaml`, { token })).status).toBe(200);
      expect((await t.call('GET', `/v1/workflows/${id}/versions`, { token })).status).toBe(200);
    }
    for (const path of [`/v1/workflows/${id}`, `/v1/workflows/${id}/manifest`, `/v1/workflows/${id}/versions`]) {
      const res = await t.call('GET', path, { token: outsider });
      expect(res.status).toBe(404);
    }
    const fork = await t.call('POST', `/v1/workflows/${id}/fork`, { token: member, body: {} });
    expect(fork.status, fork.text).toBe(201);
    expect(fork.body.data.teamId).toBeNull();
    expect(fork.body.data.forkedFrom.workflowId).toBe(id);
    // The author forks it too: the team's workflow is not their own.
    expect((await t.call('POST', `/v1/workflows/${id}/fork`, { token: admin, body: {} })).status).toBe(201);
    expect((await t.call('POST', `/v1/workflows/${id}/fork`, { token: outsider, body: {} })).status).toBe(404);
    // A member uses it: added to their library, available.
    const added = await t.call('POST', `/v1/library/${id}`, { token: member, body: {} });
    expect(added.status, added.text).toBe(201);
    expect((await t.call('POST', `/v1/library/${id}`, { token: outsider, body: {} })).status).toBe(404);
    const entry = await t.graphql(`{ library { data { workflowId available workflow { workflowId } } } }`, {}, member);
    expect(entry.body.data.library.data).toContainEqual({ workflowId: id, available: true, workflow: { workflowId: id } });
    // While it is private, members' entries follow its new versions as the author's does.
    const changed = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { manifest: sampleManifest({ intent: 'Changed' }) } });
    expect(changed.body.data.currentVersion).toBe('1.0.1');
    const followed = await t.call('GET', '/v1/library?limit=100', { token: member });
    expect(followed.body.data.find((e: { workflowId: string }) => e.workflowId === id)).toMatchObject({ workflowVersion: '1.0.1' });
    // The team's id is shown to members only, also of a public team workflow.
    expect((await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { visibility: 'public' } })).status).toBe(200);
    const seen = await t.call('GET', `/v1/workflows/${id}`, { token: outsider });
    expect(seen.status).toBe(200);
    expect(seen.body.data.teamId).toBeNull();
    // Public, it is still changed by no one outside the team.
    const refused = await t.call('PUT', `/v1/workflows/${id}`, { token: outsider, body: { description: 'no' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe('team_role');
    expect(refused.text).not.toContain(teamId);
    expect((await t.call('DELETE', `/v1/workflows/${id}`, { token: outsider })).status).toBe(403);
  });

  test('owners and admins change and delete; a member gets 403 team_role; an outsider 404', async ({
    service: t,
    world: { owner, admin, member, outsider, adminId, teamId },
  }) => {
    const id = await teamWorkflow(t, teamId, owner, 'Changed');
    const byAdmin = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { description: 'by the admin' } });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    const byMember = await t.call('PUT', `/v1/workflows/${id}`, { token: member, body: { description: 'no' } });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.details.reason).toBe('team_role');
    expect((await t.call('PUT', `/v1/workflows/${id}`, { token: outsider, body: { description: 'no' } })).status).toBe(404);
    const gqlMember = await t.graphql(
      `mutation($id: String!) { updateWorkflow(workflowId: $id, visibility: public) { workflowId } }`,
      { id },
      member,
    );
    expect(gqlMember.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'team_role' } });
    expect((await t.call('DELETE', `/v1/workflows/${id}`, { token: member })).status).toBe(403);
    expect((await t.call('DELETE', `/v1/workflows/${id}`, { token: outsider })).status).toBe(404);
    expect((await t.call('DELETE', `/v1/workflows/${id}`, { token: admin })).status).toBe(200);

    const log = await auditOf(t, owner, teamId);
    const mine = log.filter((e) => e.targetId === id);
    expect(mine.map((e) => e.action)).toEqual(['workflow.deleted', 'workflow.updated', 'workflow.created']);
    expect(mine.every((e) => e.targetType === 'workflow')).toBe(true);
    expect(mine[0]!.actorUserId).toBe(adminId);
    expect(mine[1]!.details.fields).toEqual(['description']);
  });

  test('a person who leaves loses the team’s workflows at once, the ones they wrote included', async ({
    service: t,
    world: { leaver, leaverId, teamId },
  }) => {
    const id = await teamWorkflow(t, teamId, leaver, 'Written by the leaver');
    expect((await t.call('GET', `/v1/workflows/${id}`, { token: leaver })).status).toBe(200);
    const library = `{ library { data { workflowId available unavailableReason workflow { workflowId } } } }`;
    const before = await t.graphql(library, {}, leaver);
    expect(before.body.data.library.data).toContainEqual({
      workflowId: id,
      available: true,
      unavailableReason: null,
      workflow: { workflowId: id },
    });
    expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${leaverId}`, { token: leaver })).status).toBe(200);
    const row = await t.database.db.prisma.workflow.findUniqueOrThrow({ where: { id } });
    expect(row.ownerId).toBe(leaverId);
    for (const [method, path] of [
      ['GET', `/v1/workflows/${id}`],
      ['GET', `/v1/workflows/${id}/manifest`],
      ['GET', `/v1/workflows/${id}/versions`],
      ['PUT', `/v1/workflows/${id}`],
      ['DELETE', `/v1/workflows/${id}`],
      ['POST', `/v1/workflows/${id}/fork`],
      ['GET', `/v1/workflows?teamId=${teamId}`],
    ] as const) {
      const res = await t.call(method, path, { token: leaver, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const gql = await t.graphql(`query($id: String!) { workflow(workflowId: $id) { workflowId } }`, { id }, leaver);
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    // Their library keeps the entry, unavailable, the workflow hidden.
    const after = (await t.graphql(library, {}, leaver)).body.data.library.data.find((e: { workflowId: string }) => e.workflowId === id);
    expect(after).toMatchObject({ available: false, workflow: null });
    expect(after.unavailableReason).toContain('team');
    // Nor is it in their personal list.
    const personal = await t.call('GET', '/v1/workflows', { token: leaver });
    expect(personal.body.data.map((w: { workflowId: string }) => w.workflowId)).not.toContain(id);
  });

  test('moves a personal workflow into a team and out again, by the rules, with audit entries', async ({
    service: t,
    world: { owner, admin, member, ownerId, adminId, teamId, otherTeamId },
  }) => {
    const made = await t.call('POST', '/v1/workflows', { token: admin, body: body('Moving') });
    const id = made.body.data.workflowId as string;
    // Not a string, an unknown team, a team the author does not manage: refused, nothing moves.
    for (const teamId of [['x'], '', 7]) {
      const wrong = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId } });
      expect(wrong.status, JSON.stringify(teamId)).toBe(400);
      expect(wrong.text).toContain('teamId');
    }
    const unknown = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId: 'team_unknown' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('team_unknown');
    expect((await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId: otherTeamId } })).status).toBe(404);
    const memberOwn = await t.call('POST', '/v1/workflows', { token: member, body: body('Member’s own') });
    const memberMove = await t.call('PUT', `/v1/workflows/${memberOwn.body.data.workflowId}`, { token: member, body: { teamId } });
    expect(memberMove.status).toBe(403);
    expect(memberMove.body.error.details.reason).toBe('team_role');
    // Someone else's personal workflow cannot be moved by a team owner.
    expect((await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { teamId } })).status).toBe(404);

    const moved = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.teamId).toBe(teamId);
    expect((await t.call('GET', `/v1/workflows/${id}`, { token: member })).status).toBe(200);
    // The same team again: nothing to move. Another team directly: refused.
    const same = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId } });
    expect(same.status).toBe(200);
    const between = await t.call('PUT', `/v1/workflows/${id}`, { token: owner, body: { teamId: otherTeamId } });
    expect(between.status).toBe(409);
    expect(between.body.error.details.reason).toBe('move_between_teams');
    // Out: only an owner; it becomes the owner's own.
    const byAdmin = await t.call('PUT', `/v1/workflows/${id}`, { token: admin, body: { teamId: null } });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.details.reason).toBe('team_role');
    expect((await t.call('PUT', `/v1/workflows/${id}`, { token: member, body: { teamId: null } })).status).toBe(403);
    const out = await t.graphql(
      `mutation($id: String!) { updateWorkflow(workflowId: $id, teamId: null) { workflowId teamId } }`,
      { id },
      owner,
    );
    expect(out.body.errors).toBeUndefined();
    expect(out.body.data.updateWorkflow).toEqual({ workflowId: id, teamId: null });
    const row = await t.database.db.prisma.workflow.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ ownerId, teamId: null });
    expect((await t.call('GET', `/v1/workflows/${id}`, { token: member })).status).toBe(404);
    expect((await t.call('GET', `/v1/workflows/${id}`, { token: admin })).status).toBe(404);
    const ownList = await t.call('GET', '/v1/workflows', { token: owner });
    expect(ownList.body.data.map((w: { workflowId: string }) => w.workflowId)).toContain(id);
    const lib = await t.call('GET', '/v1/library?limit=100', { token: owner });
    expect(lib.body.data.find((e: { workflowId: string }) => e.workflowId === id)).toMatchObject({ sourceType: 'owned' });

    const moves = (await auditOf(t, owner, teamId)).filter((e) => e.targetId === id);
    expect(moves.map((e) => [e.action, e.details.from, e.details.to])).toEqual([
      ['workflow.moved', teamId, null],
      ['workflow.moved', null, teamId],
    ]);
    expect(moves[0]!.details.previousOwnerId).toBe(adminId);
  });

  test('keeps the team workflows of a deleted account with the team, its billing owner their author', async ({
    service: t,
    world: { owner, member, ownerId, teamId },
  }) => {
    const writer = await t.token('writer@example.com');
    await addMember(t, owner, teamId, { token: writer, email: 'writer@example.com' }, 'admin');
    const id = await teamWorkflow(t, teamId, writer, 'Outlives its writer');
    const personal = await t.call('POST', '/v1/workflows', { token: writer, body: body('Goes with its writer') });
    expect((await t.call('DELETE', '/v1/users/me', { token: writer })).status).toBe(200);
    const kept = await t.call('GET', `/v1/workflows/${id}`, { token: member });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.teamId).toBe(teamId);
    const row = await t.database.db.prisma.workflow.findUniqueOrThrow({ where: { id } });
    expect(row.ownerId).toBe(ownerId);
    expect(await t.database.db.prisma.workflow.count({ where: { id: personal.body.data.workflowId } })).toBe(0);
  });

  test('counts team workflows toward the team’s quota on its billing owner’s plan, not the author’s', async ({ service: t }) => {
    const free = await t.token('free-owner@example.com', { plan: 'free' });
    const freeTeam = await createTeam(t, free, 'Small');
    for (let i = 0; i < 5; i++) {
      const res = await t.call('POST', '/v1/workflows', { token: free, body: body(`Team ${i}`, { teamId: freeTeam }) });
      expect(res.status, res.text).toBe(201);
    }
    // The team is full on the free plan (5 workflows); the author's personal quota is untouched.
    const over = await t.call('POST', '/v1/workflows', { token: free, body: body('Sixth', { teamId: freeTeam }) });
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      details: { quota: 'workflows', limit: 5, used: 5, plan: 'free', teamId: freeTeam },
    });
    expect(over.body.error.message).toContain(freeTeam);
    const personal = await t.call('POST', '/v1/workflows', { token: free, body: body('Personal') });
    expect(personal.status, personal.text).toBe(201);
    // Moving one more in is refused the same way; nothing moved.
    const move = await t.call('PUT', `/v1/workflows/${personal.body.data.workflowId}`, { token: free, body: { teamId: freeTeam } });
    expect(move.status).toBe(402);
    expect(move.body.error.details.teamId).toBe(freeTeam);
  });

  test('counts concurrent creates in one team one after another', async ({ service: t }) => {
    const free = await t.token('racing-owner@example.com', { plan: 'free' });
    const racing = await createTeam(t, free, 'Racing');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => t.call('POST', '/v1/workflows', { token: free, body: body(`Race ${i}`, { teamId: racing }) })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(3);
    expect(await t.database.db.prisma.workflow.count({ where: { teamId: racing } })).toBe(5);
  });

  test('keeps the versions of a team workflow by its billing owner’s plan, not its author’s', async ({
    service: t,
    world: { owner, teamId },
  }) => {
    const writer = await t.token('free-writer@example.com', { plan: 'free' });
    const writerId = await addMember(t, owner, teamId, { token: writer, email: 'free-writer@example.com' }, 'admin');
    const id = await seedWorkflow(t, writerId, {
      versions: Array.from({ length: 100 }, (_, i) => ({ version: `1.0.${i}`, manifest: seedManifest(`v${i}`) })),
    });
    // As a personal workflow of a free author, a 101st version is refused.
    const personal = await t.call('PUT', `/v1/workflows/${id}`, { token: writer, body: { manifest: seedManifest('v100') } });
    expect(personal.status).toBe(402);
    const moved = await t.call('PUT', `/v1/workflows/${id}`, { token: writer, body: { teamId } });
    expect(moved.status, moved.text).toBe(200);
    // In the team, the billing owner's enterprise plan keeps it.
    const kept = await t.call('PUT', `/v1/workflows/${id}`, { token: writer, body: { manifest: seedManifest('v100') } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.currentVersion).toBe('1.0.100');
  });
});
