import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import { escape, page } from '../oauth/pages.js';
import type { BrowserSignIn } from '../oauth/sign-in.js';
import type { Services } from '../services.js';
import { INVITATION_PAGE_PATH } from './invitations.js';

/**
 * The page an invitation's link opens (docs/teams.md, "Invitations"). Opening it changes nothing:
 * it shows the team and a confirm button, whose POST accepts, so a mail scanner that follows the
 * link accepts nothing. Not signed in: to the sign-in page and back here.
 */

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

function problemPage(title: string, message: string, status: number): Reply {
  return page(title, `<h1>${escape(title)}</h1><p>${escape(message)}</p><a class="button" href="/">Go to the dashboard</a>`, status);
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
}

const ROLE_WORDS = { owner: 'an owner', admin: 'an admin', member: 'a member' } as const;

export function createInvitationPage(deps: { services: Services; browser: BrowserSignIn }) {
  const { services, browser } = deps;

  async function confirmPage(token: string, path: string): Promise<Reply> {
    const preview = await services.teams.previewInvitation(token);
    if (!preview)
      return problemPage('Invitation not found', 'This invitation link is not valid. Check that the whole link was opened.', 404);
    if (preview.state !== 'pending') {
      const why = {
        accepted: 'It has already been used: an invitation works once.',
        revoked: 'The team revoked it. Ask its owners or admins for a new one.',
        expired: 'It has expired: invitations work for 7 days. Ask the team for a new one.',
      }[preview.state];
      return problemPage('This invitation cannot be used', why, 410);
    }
    return page(
      'Join a team',
      `<h1>Join a team</h1><p>You were invited to join <strong>${escape(preview.teamName)}</strong> as ${ROLE_WORDS[preview.role]}.</p>` +
        `<form method="post" action="${escape(path)}"><button type="submit">Join the team</button></form>` +
        `<p class="note">Nothing happens unless you confirm. The invitation works only for the account whose verified e-mail address it was sent to.</p>`,
      200,
    );
  }

  async function accept(request: Incoming, token: string): Promise<Reply> {
    browser.assertSameOrigin(request);
    const viewer = await browser.currentBrowserUser(request);
    if (!viewer) return redirect(browser.signInPath(`${INVITATION_PAGE_PATH}${token}`));
    try {
      const joined = await services.teams.acceptInvitation(viewer, { token });
      return page(
        'You joined the team',
        `<h1>You joined the team</h1><p>You are now ${ROLE_WORDS[joined.role]} of <strong>${escape(joined.name)}</strong>.</p><a class="button" href="/">Go to the dashboard</a>`,
        200,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return problemPage('You did not join the team', error.message, error.status);
    }
  }

  /** Answers GET and POST /invitations/:token; null for any other path. */
  async function handle(request: Incoming, url: URL): Promise<Reply | null> {
    const path = url.pathname;
    if (!path.startsWith(INVITATION_PAGE_PATH)) return null;
    const token = path.slice(INVITATION_PAGE_PATH.length);
    if (!TOKEN.test(token)) return problemPage('Invitation not found', 'This invitation link is not valid.', 404);
    if (request.method === 'POST') return accept(request, token);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${INVITATION_PAGE_PATH}:token`, {
        allowed: ['GET', 'POST'],
      });
    if (!(await browser.currentBrowserUser(request))) return redirect(browser.signInPath(path));
    return confirmPage(token, path);
  }

  return { handle };
}
