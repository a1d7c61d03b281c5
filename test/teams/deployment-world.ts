import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { seedWorkflow } from '../helpers/seed.js';
import { addMember, createTeam, userIdOf } from './helpers.js';

/**
 * A team with an owner (Alice, its billing owner), an admin (Bob) and a member (Carol), an outsider
 * (Dave), a private workflow of the team written by Bob, and a private deployment of the team
 * made by Alice that bundles it: what the team-deployment tests start from.
 */
export interface TeamDeploymentWorld {
  teamId: string;
  tokens: { owner: string; admin: string; member: string; outsider: string };
  ids: { owner: string; admin: string; member: string; outsider: string };
  /** The team's private workflow "Team pipeline", written by the admin. */
  teamWorkflow: string;
  /** The team's deployment bundling `teamWorkflow`, made by the owner. */
  deploymentId: string;
}

/** Seeds a workflow of the team (the team_id column, as the team-workflow routes set it). */
export async function seedTeamWorkflow(t: TestApp, ownerId: string, teamId: string, name = 'Team pipeline'): Promise<string> {
  const id = await seedWorkflow(t, ownerId, { name, description: 'Ships a feature, the team way.' });
  await t.database.db.prisma.workflow.update({ where: { id }, data: { teamId } });
  return id;
}

export async function createTeamDeployment(t: TestApp, token: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', '/v1/deployments', { token, body: { name: 'Team tools', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.data.deploymentId as string;
}

/** The world above, under e-mail addresses made unique by `prefix`. */
export async function seedTeamDeploymentWorld(t: TestApp, prefix = 'td'): Promise<TeamDeploymentWorld> {
  const emails = { owner: `${prefix}-owner@example.com`, admin: `${prefix}-admin@example.com`, member: `${prefix}-member@example.com` };
  const outsiderEmail = `${prefix}-outsider@example.com`;
  const tokens = {
    owner: await t.token(emails.owner),
    admin: await t.token(emails.admin),
    member: await t.token(emails.member),
    outsider: await t.token(outsiderEmail),
  };
  const teamId = await createTeam(t, tokens.owner, `${prefix} team`);
  const ids = {
    owner: await userIdOf(t, tokens.owner),
    admin: await addMember(t, tokens.owner, teamId, { token: tokens.admin, email: emails.admin }, 'admin'),
    member: await addMember(t, tokens.owner, teamId, { token: tokens.member, email: emails.member }),
    outsider: await userIdOf(t, tokens.outsider),
  };
  const teamWorkflow = await seedTeamWorkflow(t, ids.admin, teamId);
  const deploymentId = await createTeamDeployment(t, tokens.owner, { teamId, workflowIds: [teamWorkflow] });
  return { teamId, tokens, ids, teamWorkflow, deploymentId };
}
