import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL, served outside production at `GET /graphql` to a browser. The page is one large HTML
 * document (the package inlines its whole bundle), so it is rendered and gzip-compressed once, on
 * first use, and served from memory. It carries a content security policy that allows exactly its
 * own inline script (by hash), the workers it makes from blobs, and requests to the service itself;
 * nothing from another host, and it cannot be framed.
 */

interface GraphiQLPage {
  body: Buffer;
  gzip: Buffer;
  headers: Record<string, string>;
}

let built: GraphiQLPage | null = null;

function scriptHashes(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!, 'utf8').digest('base64')}'`,
  );
}

function build(): GraphiQLPage {
  const html = renderGraphiQL({
    title: 'Workflow service — GraphQL',
    endpoint: '/graphql',
    defaultQuery: '{ me { userId email workflowCount } }',
  });
  const csp = [
    "default-src 'none'",
    `script-src ${scriptHashes(html).join(' ')}`,
    'worker-src blob:',
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    'font-src data:',
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const body = Buffer.from(html, 'utf8');
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
    },
  };
}

/** The GraphiQL page for a request: gzip-compressed when the browser accepts it. */
export function graphiqlPage(acceptEncoding: string | null, head: boolean): Response {
  built ??= build();
  const gzip = /\bgzip\b/.test(acceptEncoding ?? '');
  const body = gzip ? built.gzip : built.body;
  const headers: Record<string, string> = { ...built.headers, 'content-length': String(body.length) };
  if (gzip) headers['content-encoding'] = 'gzip';
  return new Response(head ? null : (body as Uint8Array<ArrayBuffer>), { status: 200, headers });
}
