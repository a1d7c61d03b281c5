import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';

/**
 * Marks the address's sign-in identities as verified by their issuer, as an e-mail link or GitHub
 * would: development tokens vouch for no address, and an invitation is accepted only with a
 * verified one.
 */
export async function verifyEmail(t: TestApp, email: string): Promise<void> {
  await t.database.db.prisma.signInIdentity.updateMany({ where: { email: email.toLowerCase() }, data: { emailVerified: true } });
}

export async function createTeam(t: TestApp, token: string, name = 'Platform'): Promise<string> {
  const res = await t.call('POST', '/v1/teams', { token, body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.body.data.teamId as string;
}

export async function userIdOf(t: TestApp, token: string): Promise<string> {
  const res = await t.call('GET', '/v1/users/me', { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data.userId as string;
}

/** The token at the end of an accept link. */
export const tokenOfLink = (link: string): string => link.slice(link.lastIndexOf('/') + 1);

/**
 * Invites `email` and accepts as `token` (on a service that sends no mail, so the link is in the
 * answer). Returns the invitee's user id.
 */
export async function addMember(
  t: TestApp,
  owner: string,
  teamId: string,
  member: { token: string; email: string },
  role: 'admin' | 'member' = 'member',
): Promise<string> {
  await verifyEmail(t, member.email);
  const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, { token: owner, body: { email: member.email, role } });
  expect(invited.status, invited.text).toBe(201);
  const accepted = await t.call('POST', `/v1/invitations/${tokenOfLink(invited.body.data.acceptUrl)}/accept`, {
    token: member.token,
    body: {},
  });
  expect(accepted.status, accepted.text).toBe(200);
  return userIdOf(t, member.token);
}
