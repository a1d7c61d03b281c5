import { textResponse, type TextReply } from './text-response.js';

/**
 * Pages the service renders itself for a person in a browser when the dashboard cannot answer: a
 * page load refused by a rate limit, and an unknown path while the dashboard is not built. They
 * share the dashboard's colours and type, carry their small style sheet inline and no script, so
 * they show even when nothing else of the dashboard can load.
 */

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{padding:.75rem 1.25rem;background:#fff;border-bottom:1px solid #d5d9de;font-weight:700}
header a{color:#1b1f24;text-decoration:none}
main{max-width:32rem;margin:10vh auto;padding:2rem;background:#fff;border:1px solid #d5d9de;border-radius:10px}
h1{font-size:1.4rem;margin:0 0 .5rem}
p{margin:.5rem 0 1rem;color:#3d4550}
a:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.button{display:inline-block;margin-top:.5rem;font-weight:600;padding:.55rem 1.1rem;border-radius:6px;background:#1d4ed8;color:#fff;text-decoration:none}
.note{font-size:.9rem;color:#4b5563}
`;

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(options: { title: string; body: string; status: number; head?: string; headers?: Record<string, string> }): TextReply {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light">${options.head ?? ''}<title>${escape(options.title)} — Workflow dashboard</title>` +
    `<link rel="icon" href="/favicon.svg" type="image/svg+xml"><style>${STYLE}</style></head>` +
    `<body><header><a href="/">Workflow service</a></header><main>${options.body}</main></body></html>`;
  return textResponse(html, {
    status: options.status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CSP,
      'x-frame-options': 'DENY',
      'referrer-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
      ...options.headers,
    },
  });
}

/**
 * A page load refused by the rate limit: what happened, when it will work again, and a reload
 * the browser makes by itself once the window has reset (a meta refresh: the page runs no script).
 */
export function tooManyRequestsPage(options: { retryAfterSeconds: number; limit: number; window: string }): TextReply {
  const seconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
  const wait = seconds === 1 ? '1 second' : `${seconds} seconds`;
  return page({
    title: 'Too many requests',
    status: 429,
    head: `<meta http-equiv="refresh" content="${seconds}">`,
    body:
      `<h1>Too many requests</h1>` +
      `<p>This network address has made more than ${options.limit} requests to the service this ${escape(options.window)} without signing in, so this page was not loaded.</p>` +
      `<p role="status">It loads again by itself in <strong>${wait}</strong>.</p>` +
      `<a class="button" href="">Try again</a>` +
      `<p class="note">Signed-in use of the dashboard and your IDE's connections have budgets of their own and are not affected.</p>`,
  });
}

/** An unknown path when there is no dashboard build to show its own "page not found". */
export function notFoundPage(): TextReply {
  return page({
    title: 'Page not found',
    status: 404,
    body: `<h1>Page not found</h1><p>There is nothing at this address.</p><a class="button" href="/">Go to the dashboard</a>`,
  });
}
