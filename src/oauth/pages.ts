import { DASHBOARD_CSP } from '../dashboard/static.js';
import { textResponse, type TextReply } from '../http/text-response.js';

/** The server-rendered pages of browser sign-in: they work before any script has loaded. */

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:26rem;margin:12vh auto;padding:2rem;background:#fff;border:1px solid #d5d9de;border-radius:10px}
h1{font-size:1.4rem;margin:0 0 .5rem}
p{margin:.5rem 0 1rem;color:#3d4550}
label{display:block;font-weight:600;margin-bottom:.25rem}
input{width:100%;box-sizing:border-box;font:inherit;padding:.55rem .7rem;border:1px solid #6b7480;border-radius:6px}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
button,.button{display:inline-block;margin-top:1rem;font:inherit;font-weight:600;padding:.55rem 1.1rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none}
.error{color:#a4161a;font-weight:600}
.note{font-size:.9rem;color:#4b5563}
code{overflow-wrap:anywhere}
`;

/**
 * A CSP source for where a form on the page may lead, redirects included (browsers apply
 * form-action to them): an http(s) redirect URI's origin, or a custom scheme's name (`cursor:`).
 */
export function formActionSource(redirectUri: string): string | null {
  const parsed = URL.parse(redirectUri);
  if (!parsed) return null;
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(parsed.protocol) ? parsed.protocol : null;
}

export function page(title: string, body: string, status: number, formAction: string | null = null): TextReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} — Workflow dashboard</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
  return textResponse(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The sign-in pages carry their own small style sheet inline and no script.
      'content-security-policy': DASHBOARD_CSP.replace("style-src 'self' 'unsafe-inline'", "style-src 'unsafe-inline'").replace(
        "form-action 'self'",
        formAction ? `form-action 'self' ${formAction}` : "form-action 'self'",
      ),
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
    },
  });
}

/** The development sign-in page: an e-mail address, no password (no identity provider configured). */
export function devSignInPage(options: { returnTo: string; email?: string; error?: string; signedOut?: boolean }): TextReply {
  const error = options.error ? `<p class="error" id="email-error" role="alert">${escape(options.error)}</p>` : '';
  const signedOut = options.signedOut ? '<p role="status">You are signed out.</p>' : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>${signedOut}
<p>Development sign-in: no identity provider is configured, so any e-mail address signs you in. This page does not exist in production.</p>
<form method="post" action="/sign-in/dev">
<input type="hidden" name="return" value="${escape(options.returnTo)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escape(options.email ?? '')}"${options.error ? ' aria-invalid="true" aria-describedby="email-error"' : ''} autofocus>
${error}<button type="submit">Sign in</button>
</form>`,
    options.error ? 400 : 200,
  );
}

/** A sign-in that could not go on, with the way to start again. */
export function signInProblemPage(title: string, message: string, status: number, returnTo = '/'): TextReply {
  return page(
    title,
    `<h1>${escape(title)}</h1><p>${escape(message)}</p><a class="button" href="/sign-in?return=${encodeURIComponent(returnTo)}">Sign in again</a>`,
    status,
  );
}

export function signInUnavailablePage(): TextReply {
  return page(
    'Sign-in is not configured',
    `<h1>Sign-in is not configured</h1><p>This service accepts ID tokens from its identity provider, but browser sign-in needs the service registered as a client there: set <code>OIDC_CLIENT_ID</code> (and <code>OIDC_CLIENT_SECRET</code> for a confidential client). See the operations guide.</p>`,
    503,
  );
}

/** The consent page of the authorization server: which client wants which deployment's tool endpoint. */
export function consentPage(options: {
  action: string;
  clientName: string;
  clientUri: string | null;
  redirectHost: string;
  /** Where Allow and Deny finally send the browser: the client's redirect URI (see formActionSource). */
  redirectUri: string;
  deploymentName: string;
  endpoint: string;
  email: string | null;
}): TextReply {
  const client = options.clientUri
    ? `<a href="${escape(options.clientUri)}" rel="noreferrer">${escape(options.clientName)}</a>`
    : escape(options.clientName);
  return page(
    'Connect an application',
    `<h1>Connect ${escape(options.clientName)}?</h1>
<p><strong>${client}</strong> (it will return to <code>${escape(options.redirectHost)}</code>) asks to use the tools of your deployment <strong>${escape(options.deploymentName)}</strong> as ${escape(options.email ?? 'you')}.</p>
<p class="note">It gets access to this one tool endpoint (<code>${escape(options.endpoint)}</code>) only, not to the rest of your account. You can disconnect it at any time under connected applications.</p>
<form method="post" action="${escape(options.action)}/confirm"><button type="submit">Allow</button></form>
<form method="post" action="${escape(options.action)}/deny"><button type="submit" style="background:#4b5563">Deny</button></form>`,
    200,
    formActionSource(options.redirectUri),
  );
}

/** An authorization that cannot go on (unknown deployment, expired interaction, wrong account). */
export function authorizationProblemPage(title: string, message: string, status: number): TextReply {
  return page(title, `<h1>${escape(title)}</h1><p>${escape(message)}</p>`, status);
}
