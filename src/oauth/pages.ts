import { DASHBOARD_CSP } from '../dashboard/static.js';
import { textResponse, type TextReply } from '../http/text-response.js';

/** The server-rendered pages of browser sign-in: they work before any script has loaded. */

export function escape(text: string): string {
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
button,.button{display:inline-block;margin-top:1rem;font:inherit;font-weight:600;padding:.55rem 1.1rem;border:2px solid #1d4ed8;border-radius:6px;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none}
.ways{display:flex;flex-direction:column;gap:.5rem}
.ways .button{margin:0;text-align:center}
.or{margin-top:1.5rem}
.choices{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1rem}
.choices form,.choices>button{flex:1 1 8rem}
.choices button{width:100%;margin:0;min-height:2.75rem}
button.secondary{background:#fff;color:#1b1f24;border-color:#6b7480}
.asking{padding:.6rem .8rem;border-left:4px solid #1d4ed8;background:#eef2fb;color:#1b1f24}
.error{color:#a4161a;font-weight:600}
.note{font-size:.9rem;color:#4b5563}
code{overflow-wrap:anywhere}
`;

/**
 * A CSP source for where a form on the page may lead, redirects included (browsers apply
 * form-action to them): an http(s) redirect URI's origin, or a custom scheme's name (`cursor:`).
 */
function formActionSource(redirectUri: string): string | null {
  const parsed = URL.parse(redirectUri);
  if (!parsed) return null;
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(parsed.protocol) ? parsed.protocol : null;
}

/**
 * The security headers of every page of sign-in and of the authorization server: a CSP that loads
 * nothing from another host (the pages carry their own small style sheet inline and no script),
 * and no framing.
 */
export function pageSecurityHeaders(formAction: string | null = null): Record<string, string> {
  return {
    'content-security-policy': DASHBOARD_CSP.replace("style-src 'self' 'unsafe-inline'", "style-src 'unsafe-inline'").replace(
      "form-action 'self'",
      formAction ? `form-action 'self' ${formAction}` : "form-action 'self'",
    ),
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  };
}

export function page(title: string, body: string, status: number, formAction: string | null = null): TextReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} — Workflow dashboard</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
  return textResponse(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...pageSecurityHeaders(formAction),
    },
  });
}

/**
 * The line of a sign-in page that names the application asking, when the sign-in is the first step
 * of an authorization: its name as a quoted value (the application chose it) and who vouches for it.
 */
export function askingLine(client: ClientShown | null | undefined): string {
  if (!client) return '';
  const vouch = !client.host
    ? ''
    : client.source === 'document'
      ? ` (name published by <code>${escape(client.host)}</code>)`
      : ` (returns to <code>${escape(client.host)}</code>)`;
  const name = `<q><bdi>${escape(client.name)}</bdi></q>${vouch}`;
  if (client.opens === 'api') {
    const what = 'It gets access to the API as you (your workflows, library, deployments and API keys), not to a deployment.';
    return client.device
      ? `<p class="asking">Sign in to finish <code>wfctl login --device</code>: the command line ${name} is signed in as you once you do. ${what}</p>`
      : `<p class="asking">Sign in to continue signing in the command line ${name}. ${what} You are asked to allow or deny it next.</p>`;
  }
  return `<p class="asking">Sign in to continue connecting the application ${name} to one of your deployments. You are asked to allow or deny it next.</p>`;
}

/** A sign-in that could not go on, with the way to start again. */
export function signInProblemPage(title: string, message: string, status: number, returnTo = '/'): TextReply {
  return page(
    title,
    `<h1>${escape(title)}</h1><p>${escape(message)}</p><a class="button" href="/sign-in?return=${encodeURIComponent(returnTo)}">Sign in again</a>`,
    status,
  );
}

/** How the consent page names the application, and who vouches for that name. */
export interface ClientShown {
  /** The name it gave (bounded and stripped of control characters before it gets here). */
  name: string;
  /**
   * Where the name comes from: `document` when the client is known by a metadata document (the
   * name is published at `host`), `registered` when the client registered itself (anyone can
   * choose any name).
   */
  source: 'document' | 'registered';
  /** The host of the metadata document, or of the redirect URI for a registered client. */
  host: string;
  /** What it asks for: the API (the command line) or a deployment's tool endpoint (default). */
  opens?: 'api' | 'deployment';
  /** The command line's device sign-in (`wfctl login --device`): nothing is asked after the sign-in. */
  device?: boolean;
}

/** The consent page of the authorization server: which client wants which deployment's tool endpoint. */
export function consentPage(options: {
  action: string;
  client: ClientShown;
  redirectHost: string;
  /** Where Allow and Deny finally send the browser: the client's redirect URI (see formActionSource). */
  redirectUri: string;
  deploymentName: string;
  endpoint: string;
  email: string | null;
  /** The client also asked to learn the account's id (scope openid). */
  wantsAccountId: boolean;
}): TextReply {
  const { client } = options;
  // The heading is the service's own words; the application's self-chosen name is shown as a
  // quoted value with who vouches for it, so a name written to look like a headline of the
  // service reads as what it is.
  const vouch =
    client.source === 'document'
      ? `Name published by <strong>${escape(client.host)}</strong>.`
      : 'Name given by the application itself when it registered: the service has not checked it.';
  const accountId = options.wantsAccountId ? ' It also learns the id of your account here (not your e-mail address).' : '';
  return choicePage(
    'Connect an application',
    `<h1>Connect an application?</h1>
<p class="client">An application calling itself <q><bdi>${escape(client.name)}</bdi></q> asks to use the tools of your deployment <strong>${escape(options.deploymentName)}</strong> as ${escape(options.email ?? 'you')}.</p>
<p class="note">${vouch} It will return to <code>${escape(options.redirectHost)}</code>.</p>
<p class="note">It gets access to this one tool endpoint (<code>${escape(options.endpoint)}</code>) only, not to the rest of your account.${accountId} The connection lasts 30 days from its last use; you can disconnect it at any time under connected applications.</p>
`,
    options,
  );
}

/**
 * A page that asks for consent: `body`, then the Allow and Deny forms posting to `action`; the answer sends the
 * browser on to `redirectUri`, which the page's form-action allows.
 */
export function choicePage(title: string, body: string, options: { action: string; redirectUri: string }): TextReply {
  return page(
    title,
    `${body}
<div class="choices">
<form method="post" action="${escape(options.action)}/confirm"><button type="submit">Allow</button></form>
<form method="post" action="${escape(options.action)}/deny"><button type="submit" class="secondary">Deny</button></form>
</div>`,
    200,
    formActionSource(options.redirectUri),
  );
}

/** An authorization that cannot go on (unknown deployment, expired interaction, wrong account). */
export function authorizationProblemPage(title: string, message: string, status: number, headers: Record<string, string> = {}): TextReply {
  const reply = page(title, `<h1>${escape(title)}</h1><p>${escape(message)}</p>`, status);
  for (const [name, value] of Object.entries(headers)) reply.headers[name.toLowerCase()] = value;
  return reply;
}

/**
 * An error of the authorization server shown to a person: what happened, what to do, and which
 * application (its name and host) it concerns when known. `code` is the OAuth error code, shown
 * small for whoever reports it.
 */
export function oauthErrorPage(options: {
  title: string;
  message: string;
  todo: string;
  status: number;
  code: string;
  client?: { name: string | null; host: string | null } | null;
}): TextReply {
  const about =
    options.client?.name || options.client?.host
      ? `<p class="note">Application: ${options.client.name ? `<q><bdi>${escape(options.client.name)}</bdi></q>` : ''}${options.client.host ? ` (<code>${escape(options.client.host)}</code>)` : ''}</p>`
      : '';
  return page(
    options.title,
    `<h1>${escape(options.title)}</h1><p>${escape(options.message)}</p><p>${escape(options.todo)}</p>${about}<p class="note">Error code: <code>${escape(options.code)}</code></p>`,
    options.status,
  );
}
