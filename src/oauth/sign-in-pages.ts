import type { TextReply } from '../http/text-response.js';
import { askingLine, escape, page, type ClientShown } from './pages.js';

/**
 * The pages of signing in: the sign-in page listing the ways in that are configured, and the
 * pages of e-mail sign-in (link sent, link opened, link refused).
 */

/** The ways in the sign-in page offers (docs/operations.md, "Browser sign-in"). */
export interface WaysIn {
  github: boolean;
  email: boolean;
  /** The OpenID provider's name, when browser sign-in through it is configured. */
  oidc: string | null;
  /** The development page's form (no other way configured, outside production). */
  dev: boolean;
}

/** An e-mail form: the development one (signs in at once) or the one that sends a link. */
function emailForm(options: { action: string; returnTo: string; email?: string; error?: string; button: string; autofocus: boolean }) {
  const error = options.error ? `<p class="error" id="email-error" role="alert">${escape(options.error)}</p>` : '';
  return `<form method="post" action="${options.action}">
<input type="hidden" name="return" value="${escape(options.returnTo)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escape(options.email ?? '')}"${options.error ? ' aria-invalid="true" aria-describedby="email-error"' : ''}${options.autofocus ? ' autofocus' : ''}>
${error}<button type="submit">${escape(options.button)}</button>
</form>`;
}

/**
 * The sign-in page: a button per provider (GitHub, the OpenID provider under its name) and the
 * e-mail form; in development without any of them, the development form.
 */
export function signInPage(options: {
  returnTo: string;
  ways: WaysIn;
  email?: string;
  error?: string;
  /** An answer to show above the choices (an e-mail that could not be sent). */
  status?: number;
  signedOut?: boolean;
  asking?: ClientShown | null;
}): TextReply {
  const { ways, returnTo } = options;
  const signedOut = options.signedOut ? '<p role="status">You are signed out.</p>' : '';
  const ret = encodeURIComponent(returnTo);
  const buttons: string[] = [];
  if (ways.github) buttons.push(`<a class="button wide" href="/sign-in/github?return=${ret}">Sign in with GitHub</a>`);
  if (ways.oidc) buttons.push(`<a class="button wide" href="/sign-in/oidc?return=${ret}">Sign in with ${escape(ways.oidc)}</a>`);
  let body = '';
  if (buttons.length) body += `<div class="ways">${buttons.join('')}</div>`;
  if (ways.email) {
    if (buttons.length) body += '<p class="or">or get a sign-in link by e-mail</p>';
    else body += '<p>Enter your e-mail address: you get a link that signs you in.</p>';
    body += emailForm({
      action: '/sign-in/email',
      returnTo,
      email: options.email,
      error: options.error,
      button: 'E-mail me a sign-in link',
      autofocus: !buttons.length || Boolean(options.error),
    });
  } else if (ways.dev) {
    body +=
      '<p>Development sign-in: no way to sign in is configured, so any e-mail address signs you in. This page does not exist in production.</p>';
    body += emailForm({ action: '/sign-in/dev', returnTo, email: options.email, error: options.error, button: 'Sign in', autofocus: true });
  }
  return page('Sign in', `<h1>Sign in</h1>${signedOut}${askingLine(options.asking)}${body}`, options.status ?? (options.error ? 400 : 200));
}

/** No way to sign in is configured: says so and names the variables. */
export function signInUnavailablePage(): TextReply {
  return page(
    'Sign-in is not configured',
    `<h1>Sign-in is not configured</h1><p>No way to sign in is configured on this service. Its operator sets one or more of:</p>
<ul>
<li>GitHub: <code>GITHUB_CLIENT_ID</code> and <code>GITHUB_CLIENT_SECRET</code> (and <code>GITHUB_URL</code> for GitHub Enterprise Server);</li>
<li>e-mail links: <code>SMTP_URL</code> (and <code>MAIL_FROM</code>);</li>
<li>an OpenID provider: <code>OIDC_ISSUER</code> with <code>OIDC_CLIENT_ID</code> (and <code>OIDC_CLIENT_SECRET</code> for a confidential client).</li>
</ul>
<p>See the operations guide.</p>`,
    503,
  );
}

/** The answer to an e-mail form: the same whether or not the address has an account. */
export function emailSentPage(email: string, returnTo: string): TextReply {
  return page(
    'Check your e-mail',
    `<h1>Check your e-mail</h1><p role="status">A sign-in link is on its way to <strong>${escape(email)}</strong>. It works once, within 15 minutes.</p>
<p class="note">No message after a few minutes? Look in the spam folder, check the address, or <a href="/sign-in?return=${encodeURIComponent(returnTo)}">ask for a new link</a>.</p>`,
    200,
  );
}

/** An opened link, before it is used: one button signs in (a mail scanner fetching the link uses nothing). */
export function emailConfirmPage(options: { token: string; email: string; linking: boolean }): TextReply {
  const what = options.linking
    ? `Add <strong>${escape(options.email)}</strong> as a way to sign in to your account.`
    : `Sign in as <strong>${escape(options.email)}</strong>.`;
  return page(
    options.linking ? 'Add an e-mail address' : 'Sign in',
    `<h1>${options.linking ? 'Add an e-mail address' : 'Sign in'}</h1><p>${what}</p>
<form method="post" action="/sign-in/email/confirm">
<input type="hidden" name="token" value="${escape(options.token)}">
<button type="submit">${options.linking ? 'Add this address' : 'Sign in'}</button>
</form>
<p class="note">Did not ask for this? Close this page: nothing happens.</p>`,
    200,
  );
}
