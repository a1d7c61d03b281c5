import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { serviceTestWith } from '../helpers/service-test.js';

/** A build as Vite lays it out: index.html, hashed files under assets/, the manifest under .vite/. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wf-web-'));
  mkdirSync(join(dir, 'assets'));
  mkdirSync(join(dir, '.vite'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html lang="en"><title>Workflow dashboard</title><script type="module" src="/assets/index-abc123.js"></script></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), `console.log(${JSON.stringify('x'.repeat(4000))});`);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, '.vite', 'manifest.json'), '{}');
  return dir;
}

/** The build the file's service serves: the service reads it when it starts. */
const built = fakeBuild();
afterAll(() => rmSync(built, { recursive: true, force: true }));

const test = serviceTestWith({}, { dashboardDir: built });

describe('the dashboard at /', () => {
  test('serves the page at / and at each page route, revalidated on every load, with a same-origin-only policy', async ({ service: t }) => {
    for (const path of ['/', '/workflows', '/workflows/wf_123', '/marketplace/wf_1', '/library', '/deployments/dep_1', '/account']) {
      const res = await t.call('GET', path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.text).toContain('Workflow dashboard');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
    }
  });

  test('gives hashed files a year of immutable caching, compressed when the browser accepts it', async ({ service: t }) => {
    const res = await t.app.fetch(new Request('http://127.0.0.1/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip, br' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = gunzipSync(Buffer.from(await res.arrayBuffer())).toString();
    expect(body).toContain('console.log');
    const plain = await t.call('GET', '/assets/index-abc123.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toContain('console.log');
  });

  test('answers a program asking for an unknown path with the JSON 404, never the page', async ({ service: t }) => {
    for (const path of ['/assets/missing-000.js', '/nope', '/v1/nope', '/.vite/manifest.json', '/index.htm']) {
      const res = await t.call('GET', path, { headers: { accept: 'application/json' } });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const post = await t.call('POST', '/workflows', { body: {} });
    expect(post.status).toBe(404);
    expect(post.body.error.code).toBe('NOT_FOUND');
  });

  test("answers a browser's page load of an unknown path with the page shell and 404, so the dashboard shows its own page", async ({
    service: t,
  }) => {
    for (const path of ['/nope', '/workflowz', '/index.htm', '/sign-nothing']) {
      const res = await t.call('GET', path, { headers: { accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Workflow dashboard');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    // The API and the protocols keep their JSON 404 even in a browser.
    for (const path of ['/v1/nope', '/graphql/nope', '/.well-known/nothing']) {
      const res = await t.call('GET', path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/application\/json/);
    }
  });

  test('serves /index.html and every other file of the build: the shell revalidated, hashed files immutable', async ({ service: t }) => {
    const shell = await t.call('GET', '/index.html');
    expect(shell.status).toBe(200);
    expect(shell.headers.get('cache-control')).toBe('no-cache');
    const icon = await t.call('GET', '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  test('leaves the API routes where they are', async ({ service: t }) => {
    expect((await t.call('GET', '/healthz')).body.data.status).toBe('ok');
    expect((await t.call('GET', '/v1/workflows')).status).toBe(401);
    expect((await t.call('GET', '/v1/openapi.json')).status).toBe(200);
  });
});

describe('the dashboard before it is built', () => {
  it('says how to build it instead of failing obscurely, and an unknown page is a page of the service', async () => {
    // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
    const t = await startTestApp({ dashboardDir: null });
    try {
      const res = await t.call('GET', '/');
      expect(res.status).toBe(404);
      expect(res.text).toContain('npm run build');
      const unknown = await t.call('GET', '/nope', { headers: { accept: 'text/html' } });
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(unknown.text).toContain('<h1>Page not found</h1>');
    } finally {
      await t.close();
    }
  });
});

describe('the dashboard under the rate limit (enforced)', () => {
  let t: TestApp;
  let dir: string;
  // A service of its own: its settings are not the file's, and the serviceTest fixture gives a file one service.
  beforeAll(async () => {
    dir = fakeBuild();
    t = await startTestApp({ dashboardDir: dir, env: { RATE_LIMIT_MODE: 'enforce', TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never counts or refuses its files and page shell, whatever the address has spent', async () => {
    const from = { 'x-forwarded-for': '198.51.100.60' };
    const navigate = { ...from, accept: 'text/html', 'sec-fetch-mode': 'navigate' };
    // Twenty fresh loads of a page: the shell, its script and the icon each time.
    for (let i = 0; i < 20; i += 1) {
      for (const [path, headers] of [
        ['/workflows', navigate],
        ['/assets/index-abc123.js', from],
        ['/favicon.svg', from],
      ] as const) {
        const res = await t.call('GET', path, { headers });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('x-ratelimit-limit'), path).toBeNull();
      }
    }
    // The address's budget is untouched...
    const probe = await t.call('GET', '/nothing-here', { headers: from });
    expect(probe.headers.get('x-ratelimit-remaining')).toBe('29');
    // ...and once it is used up, the dashboard still loads.
    for (let i = 0; i < 29; i += 1) await t.call('GET', '/nothing-here', { headers: from });
    expect((await t.call('GET', '/nothing-here', { headers: from })).status).toBe(429);
    expect((await t.call('GET', '/account', { headers: navigate })).status).toBe(200);
    expect((await t.call('GET', '/assets/index-abc123.js', { headers: from })).status).toBe(200);
    expect((await t.call('GET', '/index.html', { headers: from })).status).toBe(200);
  });
});
