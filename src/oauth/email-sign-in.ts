import { randomBytes } from 'node:crypto';
import type { VerifiedIdentity, Viewer } from '../auth/viewer.js';
import type { Clock } from '../clock.js';
import { readBodyText } from '../http/body.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply, TextReply } from '../http/text-response.js';
import type { Logger } from '../logger.js';
import type { Mailer } from '../mail/mailer.js';
import { hashSecret, type OAuthStore } from '../oauth-store/index.js';
import { signInProblemPage } from './pages.js';
import { emailConfirmPage, emailSentPage, signInPage, type WaysIn } from './sign-in-pages.js';
import type { ClientShown } from './pages.js';

/**
 * E-mail sign-in by one-time link (docs/operations.md, "E-mail links"): the form sends a
 * message with a link to this service; the link's page has one button that signs in (or adds the
 * address to the signed-in account). A link works once, within 15 minutes, and only the SHA-256 of
 * its secret is kept. The form answers the same whether or not the address has an account.
 */

const EMAIL_ISSUER = 'urn:workflow-service:email';
const EMAIL_LINK_PATH = '/sign-in/email';
const CONFIRM_PATH = '/sign-in/email/confirm';
const LINK_TTL_MS = 15 * 60 * 1000;
/** Sending limits: per recipient and per client address, over a window. */
const LIMIT_WINDOW_MS = 60 * 60 * 1000;
const PER_RECIPIENT = 5;
const PER_REQUESTER = 20;
const EMAIL = /^[^\s@<>"(),;:\\[\]]{1,64}@[^\s@<>"(),;:\\[\]]+\.[^\s@<>"(),;:\\[\]]+$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface EmailSignInDeps {
  store: OAuthStore;
  clock: Clock;
  mailer: Mailer;
  log: Logger;
  /** The service's own origin: links lead there. */
  origin: string;
  ways: WaysIn;
  safeReturnPath(raw: string | null | undefined): string;
  describeReturn(returnTo: string): Promise<ClientShown | null>;
  /** Null when the request comes from another site (then a page refuses it). */
  sameOrigin(request: Incoming): boolean;
  currentUser(request: Incoming): Promise<Viewer | null>;
  /** Signs the browser in as `identity` and sends it to `returnTo`. */
  signIn(identity: VerifiedIdentity, returnTo: string): Promise<Reply>;
  /** Adds `identity` to the account `userId` and sends the browser to `returnTo`. */
  link(userId: string, identity: VerifiedIdentity, returnTo: string): Promise<Reply>;
}

function crossSitePage(): TextReply {
  return signInProblemPage('Refused', 'This form was sent from another site. Open the sign-in page of this service and try again.', 403);
}

function messageText(origin: string, link: string, linking: boolean): string {
  const what = linking ? 'add this address as a way to sign in to your account' : 'sign in';
  return [
    `Someone, hopefully you, asked to ${what} at ${origin} with this e-mail address.`,
    '',
    `To ${what}, open this link within 15 minutes. It works once:`,
    '',
    link,
    '',
    'If you did not ask for it, ignore this message: nothing happens unless the link is opened,',
    'and no account is made or changed.',
    '',
  ].join('\n');
}

type Checked = { token: string; id: string } | { problem: TextReply };

function expiredPage(): TextReply {
  return signInProblemPage(
    'This link has expired',
    'A sign-in link works for 15 minutes after it is sent. Ask for a new one on the sign-in page.',
    400,
  );
}
function usedPage(): TextReply {
  return signInProblemPage(
    'This link has already been used',
    'A sign-in link works once. If you are not signed in, ask for a new one on the sign-in page.',
    400,
  );
}
function unknownPage(): TextReply {
  return signInProblemPage(
    'This link is not valid',
    'The link is incomplete or is not one this service sent. Copy the whole link from the message, or ask for a new one.',
    400,
  );
}

function check(raw: string | null): Checked {
  if (!raw || !TOKEN.test(raw)) return { problem: unknownPage() };
  return { token: raw, id: hashSecret(raw) };
}

/** Why a link cannot be used (unknown, used, expired), as a page. */
async function refusal(deps: EmailSignInDeps, id: string): Promise<TextReply> {
  const found = await deps.store.emailLinks.find(id);
  if (!found) return unknownPage();
  if (found.usedAt) return usedPage();
  return expiredPage();
}

/** POST /sign-in/email: checks the address, applies the sending limits, sends the link. */
async function requestLink(deps: EmailSignInDeps, clientIp: string, linkTo: string | null, form: URLSearchParams): Promise<Reply> {
  const { clock, mailer, origin } = deps;
  const links = deps.store.emailLinks;
  const returnTo = deps.safeReturnPath(form.get('return'));
  const email = (form.get('email') ?? '').trim();
  const again = async (error: string, status = 400, shown = email) =>
    signInPage({ returnTo, ways: deps.ways, email: shown, error, status, asking: await deps.describeReturn(returnTo) });
  if (!email) return again('Enter your e-mail address.');
  if (email.length > 254 || !EMAIL.test(email)) return again('Enter an e-mail address such as name@example.com.');
  const address = email.toLowerCase();
  const requester = hashSecret(`requester:${clientIp}`);
  const now = clock.now();
  const sent = await links.sentSince(address, requester, new Date(now.getTime() - LIMIT_WINDOW_MS));
  if (sent.toRecipient >= PER_RECIPIENT)
    return again(`Too many sign-in links were sent to this address in the last hour. Use one already sent, or try again later.`, 429);
  if (sent.fromRequester >= PER_REQUESTER)
    return again('Too many sign-in links were asked for from your network in the last hour. Try again later.', 429);
  const secret = randomBytes(32).toString('base64url');
  const id = hashSecret(secret);
  await links.create({
    id,
    email: address,
    linkTo,
    requester,
    returnTo,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_TTL_MS),
  });
  const link = `${origin}${CONFIRM_PATH}?token=${secret}`;
  try {
    await mailer.send({
      to: email,
      subject: linkTo ? `Add your e-mail address at ${new URL(origin).host}` : `Your sign-in link for ${new URL(origin).host}`,
      text: messageText(origin, link, linkTo !== null),
    });
  } catch (error) {
    // Nothing of the attempt stays: the link that was never sent is removed.
    await links.remove(id);
    deps.log.warn({ err: error }, 'a sign-in e-mail could not be sent');
    return again('The message could not be sent: the mail server did not accept it. Try again in a few minutes.', 503);
  }
  return emailSentPage(email, returnTo);
}

/** POST /sign-in/email: a link to sign in, or to add the address to the signed-in account. */
async function askForLink(deps: EmailSignInDeps, request: Incoming, clientIp: string): Promise<Reply> {
  if (!deps.sameOrigin(request)) return crossSitePage();
  const form = new URLSearchParams(await readBodyText(request, 16 * 1024));
  // Adding an address to the signed-in account (Account page) sends the same kind of link.
  const linking = form.get('intent') === 'link' ? await deps.currentUser(request) : null;
  if (form.get('intent') === 'link' && !linking)
    return signInProblemPage('You are not signed in', 'Sign in first, then add the address from your account page.', 401);
  return requestLink(deps, clientIp, linking?.userId ?? null, form);
}

/** GET of a link: the page that confirms it (the link is used only when that page's form is sent). */
async function confirmPage(deps: EmailSignInDeps, url: URL): Promise<Reply> {
  const checked = check(url.searchParams.get('token'));
  if ('problem' in checked) return checked.problem;
  const found = await deps.store.emailLinks.find(checked.id);
  if (!found || found.usedAt || found.expiresAt.getTime() <= deps.clock.now().getTime()) return refusal(deps, checked.id);
  return emailConfirmPage({ token: checked.token, email: found.email, linking: found.linkTo !== null });
}

/** The confirmation posted: the link is used, and the browser signed in (or the address added). */
async function useLink(deps: EmailSignInDeps, request: Incoming): Promise<Reply> {
  if (!deps.sameOrigin(request)) return crossSitePage();
  const form = new URLSearchParams(await readBodyText(request, 4 * 1024));
  const checked = check(form.get('token'));
  if ('problem' in checked) return checked.problem;
  const used = await deps.store.emailLinks.use(checked.id, deps.clock.now());
  if (!used) return refusal(deps, checked.id);
  const identity: VerifiedIdentity = {
    issuer: EMAIL_ISSUER,
    subject: used.email,
    email: used.email,
    emailVerified: true,
    method: 'email',
    name: null,
    // When the link was sent: a link sent before its account was deleted opens nothing.
    issuedAt: Math.floor(used.createdAt.getTime() / 1000),
  };
  if (!used.linkTo) return deps.signIn(identity, used.returnTo);
  const viewer = await deps.currentUser(request);
  if (!viewer || viewer.userId !== used.linkTo)
    return signInProblemPage(
      'Open the link where you asked for it',
      'This link adds the address to an account: open it in the browser signed in to that account, or ask for a new one there.',
      400,
    );
  return deps.link(used.linkTo, identity, used.returnTo);
}

export function createEmailSignIn(deps: EmailSignInDeps) {
  return {
    async handle(request: Incoming, url: URL, clientIp: string): Promise<Reply | null> {
      const path = url.pathname;
      if (path === EMAIL_LINK_PATH && request.method === 'POST') return askForLink(deps, request, clientIp);
      if (path === CONFIRM_PATH && (request.method === 'GET' || request.method === 'HEAD')) return confirmPage(deps, url);
      if (path === CONFIRM_PATH && request.method === 'POST') return useLink(deps, request);
      if (path === EMAIL_LINK_PATH || path === CONFIRM_PATH) {
        return signInProblemPage('Not allowed', `${request.method} is not allowed here.`, 405);
      }
      return null;
    },
  };
}
