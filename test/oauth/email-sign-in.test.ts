import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/oauth-store/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/** E-mail sign-in by one-time link, through the service's pages, with a real SMTP server on loopback. */

const ORIGIN = 'http://127.0.0.1';

function form(t: TestApp, path: string, fields: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) {
  return t.app.fetch(
    new Request(`${ORIGIN}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

async function page(response: Response): Promise<{ status: number; type: string | null; text: string }> {
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

function tokenOf(link: string): string {
  const token = new URL(link).searchParams.get('token');
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

function sessionCookie(response: Response): string | null {
  const header = response.headers.getSetCookie().find((c) => c.startsWith('wf_session='));
  return header ? header.split(';')[0]! : null;
}

async function meWith(t: TestApp, cookie: string) {
  const res = await t.app.fetch(
    new Request(`${ORIGIN}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, origin: ORIGIN },
      body: JSON.stringify({ query: '{ me { userId email } }' }),
    }),
  );
  return ((await res.json()) as { data: { me: { userId: string; email: string } | null } }).data?.me ?? null;
}

const clock = new MovableClock();
/** The mail server the service sends to, started before it. */
let mailServer: TestSmtpServer | undefined;

/** The service on a clock the tests move, sending through a mail server of the file's. */
const test = serviceTestWith(
  { PUBLIC_BASE_URL: `${ORIGIN}/v1`, MAIL_FROM: 'Workflows <signin@example.com>' },
  {
    clock,
    peers: async () => {
      const smtp = await startSmtpServer();
      mailServer = smtp;
      return { env: { SMTP_URL: smtp.url }, close: () => smtp.close() };
    },
  },
).extend<{ smtp: TestSmtpServer }>({
  // The mail server the service was started with (so after the service).
  smtp: [async ({ service: _ }, use) => use(mailServer!), { scope: 'file' }],
});

describe('e-mail sign-in by one-time link', () => {
  let sent = 0;

  async function ask(t: TestApp, email: string) {
    const res = await page(await form(t, '/sign-in/email', { email, return: '/workflows' }));
    if (res.status === 200) sent += 1;
    return res;
  }

  test('offers the e-mail form, not the development page', async ({ service: t }) => {
    const res = await t.call('GET', '/sign-in?return=%2Fworkflows');
    expect(res.status).toBe(200);
    expect(res.text).toContain('action="/sign-in/email"');
    expect(res.text).toContain('E-mail me a sign-in link');
    expect(res.text).not.toContain('/sign-in/dev');
  });

  test('sends a link to the service’s own origin, keeps only its hash, and signs in once', async ({ service: t, smtp }) => {
    const answer = await ask(t, 'Ada@Example.com');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('text/html');
    expect(answer.text).toContain('Check your e-mail');
    const mail = await smtp.waitForMessage(sent);
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(['ada@example.com']);
    expect(mail.from).toMatch(/^"?Workflows"? <signin@example.com>$/);
    expect(mail.text).toMatch(/within 15 minutes/);
    expect(mail.text).toMatch(/If you did not ask for it, ignore this message/);
    const link = linkIn(mail, ORIGIN);
    expect(link.startsWith(`${ORIGIN}/sign-in/email/confirm?token=`)).toBe(true);
    const token = tokenOf(link);
    const rows = await t.database.db.prisma.emailSignInLink.findMany({ where: { email: 'ada@example.com' } });
    expect(rows.map((r) => r.id)).toEqual([hashSecret(token)]);
    expect(JSON.stringify(rows)).not.toContain(token);

    // Opening the link shows one button (a mail scanner fetching it signs no one in).
    const opened = await t.call('GET', new URL(link).pathname + new URL(link).search);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('ada@example.com');
    expect(opened.headers.getSetCookie()).toEqual([]);

    const confirmed = await form(t, '/sign-in/email/confirm', { token });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe('/workflows');
    const cookie = sessionCookie(confirmed)!;
    expect(cookie).toBeTruthy();
    const me = await meWith(t, cookie);
    expect(me?.email).toBe('ada@example.com');

    // The second use signs no one in.
    const again = await page(await form(t, '/sign-in/email/confirm', { token }));
    expect(again.status).toBe(400);
    expect(again.type).toContain('text/html');
    expect(again.text).toContain('already been used');
    const reopened = await t.call('GET', new URL(link).pathname + new URL(link).search);
    expect(reopened.text).toContain('already been used');

    // A second link for the same address opens the same account.
    await ask(t, 'ada@example.com');
    const second = await form(t, '/sign-in/email/confirm', { token: tokenOf(linkIn(await smtp.waitForMessage(sent), ORIGIN)) });
    expect((await meWith(t, sessionCookie(second)!))?.userId).toBe(me?.userId);
  });

  test('answers the same whether or not the address has an account', async ({ service: t, smtp }) => {
    const known = await ask(t, 'ada@example.com');
    const unknown = await ask(t, 'nobody-yet@example.com');
    expect(unknown.status).toBe(known.status);
    expect(unknown.text.replace('nobody-yet@example.com', 'X')).toBe(known.text.replace('ada@example.com', 'X'));
    await smtp.waitForMessage(sent);
    expect(await t.database.db.prisma.user.count({ where: { email: 'nobody-yet@example.com' } })).toBe(0);
  });

  test('refuses a link older than 15 minutes', async ({ service: t, smtp }) => {
    await ask(t, 'late@example.com');
    const token = tokenOf(linkIn(await smtp.waitForMessage(sent), ORIGIN));
    clock.advance(15 * 60 * 1000 + 1000);
    const res = await page(await form(t, '/sign-in/email/confirm', { token }));
    expect(res.status).toBe(400);
    expect(res.type).toContain('text/html');
    expect(res.text).toContain('This link has expired');
    expect(await t.database.db.prisma.user.count({ where: { email: 'late@example.com' } })).toBe(0);
  });

  test('answers every bad input with a page', async ({ service: t }) => {
    for (const email of ['', 'not-an-address', 'a@b', `${'x'.repeat(250)}@example.com`, 'two@example.com, three@example.com']) {
      const res = await page(await form(t, '/sign-in/email', { email, return: '/' }));
      expect(res.status, email).toBe(400);
      expect(res.type, email).toContain('text/html');
      expect(res.text, email).toMatch(/Enter (your|an) e-mail address/);
    }
    for (const token of ['', 'short', 'x'.repeat(43), '%00']) {
      const res = await page(await form(t, '/sign-in/email/confirm', { token }));
      expect(res.status, token).toBe(400);
      expect(res.type).toContain('text/html');
      expect(res.text).toMatch(/This link is not valid/);
      const opened = await t.call('GET', `/sign-in/email/confirm?token=${encodeURIComponent(token)}`);
      expect(opened.status).toBe(400);
      expect(opened.text).toMatch(/This link is not valid/);
    }
    const crossSite = await page(await form(t, '/sign-in/email', { email: 'x@example.com' }, { origin: 'https://evil.example' }));
    expect(crossSite.status).toBe(403);
    expect(crossSite.type).toContain('text/html');
    const crossConfirm = await page(await form(t, '/sign-in/email/confirm', { token: 'x'.repeat(43) }, { origin: 'https://evil.example' }));
    expect(crossConfirm.status).toBe(403);
    const wrongMethod = await t.call('PUT', '/sign-in/email');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('content-type')).toContain('text/html');
  });

  test('limits the links sent to one address', async ({ service: t }) => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await ask(t, 'busy@example.com')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await ask(t, 'busy@example.com');
    expect(refused.text).toContain('Too many sign-in links were sent to this address');
    expect(await t.database.db.prisma.emailSignInLink.count({ where: { email: 'busy@example.com' } })).toBe(5);
    // Another address is not held up by it.
    expect((await ask(t, 'calm@example.com')).status).toBe(200);
  });

  test('limits the links one client address asks for', async ({ service: t }) => {
    let last = { status: 0, text: '' };
    for (let i = 0; i < 25 && last.status !== 429; i += 1) last = await ask(t, `many-${i}@example.com`);
    expect(last.status).toBe(429);
    expect(last.text).toContain('Too many sign-in links were asked for from your network');
    // Every link this client address asked for in the hour counts, earlier tests' too: 20.
    const requesters = await t.database.db.prisma.emailSignInLink.groupBy({ by: ['requester'], _count: true });
    expect(requesters.map((r) => r._count)).toEqual([20]);
  });
});

describe('e-mail sign-in with the mail server down', () => {
  let t: TestApp;
  // Starts a service of its own, with a mail server that is not there: a file has one fixture
  // service (vitest keeps a file-scoped fixture by its name, once per file), the one above.
  beforeAll(async () => {
    // A port nothing listens on.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    t = await startTestApp({ env: { PUBLIC_BASE_URL: `${ORIGIN}/v1`, SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(() => t?.close());

  it('says the message could not be sent, and keeps nothing of the attempt', async () => {
    const res = await page(await form(t, '/sign-in/email', { email: 'ada@example.com', return: '/' }));
    expect(res.status).toBe(503);
    expect(res.type).toContain('text/html');
    expect(res.text).toContain('The message could not be sent');
    // The form is there again, with the address typed.
    expect(res.text).toContain('value="ada@example.com"');
    expect(await t.database.db.prisma.emailSignInLink.count()).toBe(0);
    expect(await t.database.db.prisma.user.count()).toBe(0);
  });
});
