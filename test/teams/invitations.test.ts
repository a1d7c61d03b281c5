import { describe, expect } from 'vitest';
import { MovableClock } from '../helpers/clock.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { createTeam, tokenOfLink, userIdOf, verifyEmail } from './helpers.js';

const ORIGIN = 'https://api.example.com';
const DAY = 24 * 60 * 60 * 1000;

const clock = new MovableClock();
/** The mail server the service sends through: started by the service fixture, before the service. */
let smtp: TestSmtpServer;

/** Alice's team "Platform", and the four people with tokens that outlive the jumps in time below (Bob's and Dave's addresses verified). */
interface Invited {
  teamId: string;
  alice: string;
  bob: string;
  carol: string;
  dave: string;
}

/** Invites and returns the link of the e-mail that arrived. */
type Invite = (email: string, role?: string) => Promise<{ link: string; invitationId: string }>;

const test = serviceTestWith(
  { PUBLIC_BASE_URL: `${ORIGIN}/v1` },
  {
    clock,
    peers: async () => {
      smtp = await startSmtpServer();
      return { env: { SMTP_URL: smtp.url }, close: () => smtp.close() };
    },
  },
).extend<{ world: Invited; invite: Invite }>({
  world: [
    async ({ service: t }, use) => {
      const long = { expiresInSeconds: 60 * 86400 };
      const [alice, bob, carol, dave] = (await Promise.all(
        ['alice', 'bob', 'carol', 'dave'].map((n) => t.token(`${n}@example.com`, long)),
      )) as string[] as [string, string, string, string];
      for (const n of ['bob', 'dave']) await verifyEmail(t, `${n}@example.com`);
      const teamId = await createTeam(t, alice, 'Platform');
      await use({ teamId, alice, bob, carol, dave });
    },
    { scope: 'file' },
  ],
  invite: [
    async ({ service: t, world: { teamId, alice } }, use) =>
      use(async (email, role = 'member') => {
        const before = smtp.messages.length;
        const res = await t.call('POST', `/v1/teams/${teamId}/invitations`, { token: alice, body: { email, role } });
        expect(res.status, res.text).toBe(201);
        expect(res.body.data).toMatchObject({ teamId, email: email.toLowerCase(), role, emailSent: true, acceptUrl: null });
        const mail = await smtp.waitForMessage(before + 1);
        expect(mail.to).toEqual([email]);
        expect(mail.text).toContain('"Platform"');
        return { link: linkIn(mail, ORIGIN), invitationId: res.body.data.invitationId };
      }),
    { scope: 'file' },
  ],
});

describe('team invitations by e-mail', () => {
  test('sends an e-mail with an accept link; the invited person accepts and becomes a member', async ({
    service: t,
    invite,
    world: { teamId, alice, bob },
  }) => {
    const { link } = await invite('bob@example.com');
    expect(link).toMatch(new RegExp(`^${ORIGIN}/invitations/[A-Za-z0-9_-]{43}$`));
    const accepted = await t.call('POST', `/v1/invitations/${tokenOfLink(link)}/accept`, { token: bob, body: {} });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data).toEqual({ teamId, name: 'Platform', role: 'member' });
    const teams = await t.call('GET', '/v1/teams', { token: bob });
    expect(teams.body.data).toEqual([expect.objectContaining({ teamId, name: 'Platform', role: 'member' })]);
    const members = await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice });
    expect(members.body.data.map((m: { email: string; role: string }) => `${m.email} ${m.role}`).sort()).toEqual([
      'alice@example.com owner',
      'bob@example.com member',
    ]);
  });

  test('refuses an invitation used a second time, by anyone', async ({ service: t, invite, world: { bob, dave } }) => {
    const { link } = await invite('dave@example.com', 'admin');
    const token = tokenOfLink(link);
    expect((await t.call('POST', `/v1/invitations/${token}/accept`, { token: dave, body: {} })).status).toBe(200);
    for (const who of [dave, bob]) {
      const again = await t.call('POST', `/v1/invitations/${token}/accept`, { token: who, body: {} });
      expect(again.status, again.text).toBe(409);
      expect(again.body.error.details.reason).toBe('invitation_accepted');
    }
  });

  test('refuses an invitation opened by the wrong person, and by the right one until the address is verified', async ({
    service: t,
    invite,
    world: { teamId, alice, bob, carol },
  }) => {
    const { link } = await invite('carol@example.com');
    const token = tokenOfLink(link);
    // Bob is signed in with a verified address, but not this one.
    const wrong = await t.call('POST', `/v1/invitations/${token}/accept`, { token: bob, body: {} });
    expect(wrong.status, wrong.text).toBe(403);
    expect(wrong.body.error.details.reason).toBe('invitation_email_mismatch');
    expect(wrong.text).not.toContain('carol@example.com');
    // Carol's address is not verified yet.
    const unverified = await t.call('POST', `/v1/invitations/${token}/accept`, { token: carol, body: {} });
    expect(unverified.status).toBe(403);
    await verifyEmail(t, 'carol@example.com');
    const accepted = await t.call('POST', `/v1/invitations/${token}/accept`, { token: carol, body: {} });
    expect(accepted.status, accepted.text).toBe(200);
    // The refusals consumed nothing: the invitation worked once, for Carol.
    const carolId = await userIdOf(t, carol);
    const members = await t.call('GET', `/v1/teams/${teamId}/members`, { token: alice });
    expect(members.body.data.map((m: { userId: string }) => m.userId)).toContain(carolId);
  });

  test('lists pending invitations and revokes one: its link stops working', async ({ service: t, invite, world: { teamId, alice } }) => {
    const { link, invitationId } = await invite('erin@example.com');
    const pending = await t.call('GET', `/v1/teams/${teamId}/invitations`, { token: alice });
    expect(pending.status).toBe(200);
    expect(pending.body.data).toEqual([expect.objectContaining({ invitationId, email: 'erin@example.com', role: 'member' })]);
    expect(pending.text).not.toContain(tokenOfLink(link));
    const revoked = await t.call('DELETE', `/v1/teams/${teamId}/invitations/${invitationId}`, { token: alice });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data).toMatchObject({ invitationId, deleted: true });
    expect((await t.call('GET', `/v1/teams/${teamId}/invitations`, { token: alice })).body.data).toEqual([]);
    const erin = await t.token('erin@example.com');
    await verifyEmail(t, 'erin@example.com');
    const refused = await t.call('POST', `/v1/invitations/${tokenOfLink(link)}/accept`, { token: erin, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe('invitation_revoked');
    // Revoked once is revoked: a second revocation is refused too.
    expect((await t.call('DELETE', `/v1/teams/${teamId}/invitations/${invitationId}`, { token: alice })).status).toBe(409);
  });

  test('refuses a wrong role, an invalid address, a token that names no invitation, and a second pending invitation', async ({
    service: t,
    invite,
    world: { teamId, alice, bob },
  }) => {
    for (const role of ['superuser', 'owner', '']) {
      const res = await t.call('POST', `/v1/teams/${teamId}/invitations`, { token: alice, body: { email: 'x@example.com', role } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('role');
    }
    for (const email of ['not-an-address', 'a@b', '', `${'a'.repeat(250)}@example.com`]) {
      const res = await t.call('POST', `/v1/teams/${teamId}/invitations`, { token: alice, body: { email, role: 'member' } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('email');
    }
    const unknown = await t.call('POST', `/v1/invitations/${'x'.repeat(43)}/accept`, { token: bob, body: {} });
    expect(unknown.status).toBe(404);
    await invite('frank@example.com');
    const twice = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: alice,
      body: { email: 'Frank@Example.com', role: 'member' },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.reason).toBe('already_invited');
    const member = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
      token: alice,
      body: { email: 'bob@example.com', role: 'member' },
    });
    expect(member.status).toBe(409);
    expect(member.body.error.details.reason).toBe('already_member');
  });

  test('refuses an invitation after 7 days', async ({ service: t, invite, world: { teamId, alice } }) => {
    const { link } = await invite('gina@example.com');
    const gina = await t.token('gina@example.com', { expiresInSeconds: 60 * 86400 });
    await verifyEmail(t, 'gina@example.com');
    clock.offsetMs += 7 * DAY + 60_000;
    try {
      const expired = await t.call('POST', `/v1/invitations/${tokenOfLink(link)}/accept`, { token: gina, body: {} });
      expect(expired.status, expired.text).toBe(409);
      expect(expired.body.error.details.reason).toBe('invitation_expired');
      // Expired invitations are no longer pending.
      const pending = await t.call('GET', `/v1/teams/${teamId}/invitations`, { token: alice });
      expect(pending.body.data.map((i: { email: string }) => i.email)).not.toContain('gina@example.com');
    } finally {
      clock.offsetMs = 0;
    }
  });
});
