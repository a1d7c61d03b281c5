import { describe, expect } from 'vitest';
import { serviceTest } from '../helpers/service-test.js';
import { addMember, createTeam, userIdOf } from './helpers.js';

const TEAM = `query($teamId: String!) { team(teamId: $teamId) { teamId name role billingOwnerId createdAt } }`;

/** GraphQL `team(teamId)`: one team of the caller's, with their role (the dashboard's team page). */
describe('one team through GraphQL', () => {
  serviceTest(
    'answers each member with their own role; removed members, outsiders and unknown teams get NOT_FOUND',
    async ({ service: t, alice, bob, carol, dave }) => {
      const teamId = await createTeam(t, alice, 'Platform');
      await addMember(t, alice, teamId, { token: bob, email: 'bob@example.com' }, 'admin');
      const carolId = await addMember(t, alice, teamId, { token: carol, email: 'carol@example.com' });
      const aliceId = await userIdOf(t, alice);

      for (const [token, role] of [
        [alice, 'owner'],
        [bob, 'admin'],
        [carol, 'member'],
      ] as const) {
        const res = await t.graphql(TEAM, { teamId }, token);
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.team).toMatchObject({ teamId, name: 'Platform', role, billingOwnerId: aliceId });
        expect(Number.isNaN(Date.parse(res.body.data.team.createdAt))).toBe(false);
      }

      expect((await t.call('DELETE', `/v1/teams/${teamId}/members/${carolId}`, { token: alice })).status).toBe(200);
      for (const [token, id] of [
        [carol, teamId],
        [dave, teamId],
        [alice, 'team_unknown'],
      ] as const) {
        const res = await t.graphql(TEAM, { teamId: id }, token);
        expect(res.body.data).toBeNull();
        expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
        expect(res.body.errors[0].message).not.toContain('Platform');
      }
      expect((await t.graphql(TEAM, { teamId })).body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    },
  );
});
