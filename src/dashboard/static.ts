import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Incoming } from '../http/incoming.js';
import type { Reply } from '../http/text-response.js';
import { notFoundPage } from '../http/service-pages.js';

/**
 * The dashboard's built files (Vite's output in dist/web), served at / from memory and never
 * rate-limited (src/app.ts answers them before any budget is charged). Hashed files under /assets/
 * never change under their name, so they are cached for a year as immutable; the page shell and
 * the other files of the build (favicon) are revalidated on every load so a new build is picked
 * up at once.
 */

/** The dashboard's page routes: these paths answer the page, so a reload or a shared link works. */
const PAGE_ROUTES = /^\/(?:$|workflows(?:\/.*)?$|marketplace(?:\/.*)?$|library\/?$|deployments(?:\/.*)?$|account\/?$)/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Everything the page may load comes from this origin; style attributes are allowed because the
 * component and chart libraries position overlays and chart parts with inline styles.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

interface StaticFile {
  body: Uint8Array;
  gzip: Uint8Array | null;
  headers: Record<string, string>;
}

export interface DashboardAssets {
  /** The reply for a GET or HEAD of a dashboard path, or null when the path is not the dashboard's. */
  serve(request: Incoming, path: string): Response | null;
  /**
   * The answer to a browser's page load of an unknown path: the page shell with status 404, so the
   * dashboard's router shows its own "page not found"; without a build, a page of the service.
   */
  notFound(request: Incoming): Reply;
}

/**
 * Where the build is: dist/web beside the compiled service (dist/src/dashboard → dist/web), or
 * dist/web of the checkout when the service runs from source. Vite's manifest marks a build.
 */
export function findDashboardBuild(): string | null {
  const candidates = [fileURLToPath(new URL('../../web/', import.meta.url)), fileURLToPath(new URL('../../dist/web/', import.meta.url))];
  return candidates.find((dir) => existsSync(join(dir, '.vite', 'manifest.json'))) ?? null;
}

/** The dashboard's icon from its source folder (web/public), for a service run without a build. */
function sourceIcon(): StaticFile | null {
  const candidates = ['../../web/public/favicon.svg', '../../../web/public/favicon.svg'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (!found) return null;
  return {
    body: readFileSync(found),
    gzip: null,
    headers: { 'content-type': 'image/svg+xml', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
  };
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== '.vite') out.push(...listFiles(full));
    } else {
      out.push(full);
    }
  }
  return out;
}

export function loadDashboardAssets(dir: string | null): DashboardAssets {
  const files = new Map<string, StaticFile>();
  if (dir) {
    for (const full of listFiles(dir)) {
      const urlPath = `/${relative(dir, full).split(sep).join('/')}`;
      const type = TYPES[extname(full)] ?? 'application/octet-stream';
      const body = readFileSync(full);
      const hashed = urlPath.startsWith('/assets/');
      const headers: Record<string, string> = {
        'content-type': type,
        'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
      };
      if (type.startsWith('text/html')) {
        headers['content-security-policy'] = DASHBOARD_CSP;
        headers['referrer-policy'] = 'same-origin';
        headers['x-frame-options'] = 'DENY';
      }
      const compressible = /^(text\/|image\/svg|application\/json)/.test(type) && body.length > 512;
      files.set(urlPath, { body, gzip: compressible ? gzipSync(body, { level: 9 }) : null, headers });
    }
  }
  // The service's own pages name /favicon.svg, and browsers ask for /favicon.ico on pages that name
  // no icon: both are served (from the source folder when the dashboard is not built), never a 404
  // that logs and spends a budget.
  const icon = files.get('/favicon.svg') ?? sourceIcon();
  if (icon) {
    if (!files.has('/favicon.svg')) files.set('/favicon.svg', icon);
    if (!files.has('/favicon.ico')) files.set('/favicon.ico', icon);
  }
  const page = files.get('/index.html');

  function reply(request: Incoming, file: StaticFile, status = 200): Response {
    const gzip = file.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
    const body = gzip ? file.gzip! : file.body;
    const headers: Record<string, string> = { ...file.headers, 'content-length': String(body.length), vary: 'accept-encoding' };
    if (gzip) headers['content-encoding'] = 'gzip';
    return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), { status, headers });
  }

  return {
    serve(request, path) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return null;
      const file = files.get(path);
      if (file) return reply(request, file);
      if (!PAGE_ROUTES.test(path)) return null;
      // A service run from source without a build (npm run dev) has no page to serve: a 404 that
      // says how to get one, not a 5xx, since nothing is wrong with the service.
      if (!page) {
        return new Response('The dashboard is not built: run `npm run build` (npm start does it for you).\n', {
          status: 404,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        });
      }
      return reply(request, page);
    },
    notFound(request) {
      if (!page) return notFoundPage();
      return reply(request, page, 404);
    },
  };
}
