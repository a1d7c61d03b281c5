import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, isSpecialUseAddress } from '../../src/net/guarded-fetch.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { MovableClock } from '../helpers/clock.js';
import {
  answerConsent,
  authorizationUrl,
  createBrowser,
  OAUTH_ENV,
  OAUTH_ORIGIN,
  ownerWithDeployments,
  pkcePair,
  REDIRECT_URI,
  registerClient,
  toConsent,
  tokenRequest,
} from '../helpers/oauth.js';
import { serviceTestWith } from '../helpers/service-test.js';

/**
 * Registration with bounds, unauthenticated work charged before it runs, expired records swept,
 * outbound fetches that cannot be aimed inward, and known IDE clients without egress.
 */
const ORIGIN = OAUTH_ORIGIN;

/** A TCP port that accepts connections and never answers, counting them. */
async function silentPort(): Promise<{ server: Server; port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as { port: number }).port,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const operatorClient = 'https://127.0.0.1:9/ide.json';

/** A service that fetches no client document, with an operator's folder of pinned ones made before it; and a deployment of its user's. */
const pinnedTest = serviceTestWith(
  { ...OAUTH_ENV, OAUTH_CLIENT_METADATA_FETCH: 'off' },
  {
    peers: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wf-client-docs-'));
      // An operator's copy of a client the service cannot reach (here: a special-use address, never fetched).
      writeFileSync(
        join(dir, 'ide.json'),
        JSON.stringify({
          client_id: operatorClient,
          client_name: 'Operator IDE',
          redirect_uris: ['http://127.0.0.1/callback'],
          token_endpoint_auth_method: 'none',
        }),
      );
      return { env: { OAUTH_CLIENT_METADATA_DIR: dir }, close: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
).extend<{ dep: string }>({
  dep: [
    async ({ service: t }, use) => use((await ownerWithDeployments(t, 'ide-user@example.com', ['Mine'])).deploymentIds[0]),
    { scope: 'file' },
  ],
});

describe('registration with bounds and the flood of unauthenticated requests', () => {
  let t: TestApp;
  let silent: Awaited<ReturnType<typeof silentPort>>;
  const clock = new MovableClock();

  // Starts a service of its own, enforcing its rate limits: a file has one fixture service (vitest
  // keeps a file-scoped fixture by its name, once per file), the one of the last describe.
  beforeAll(async () => {
    silent = await silentPort();
    t = await startTestApp({
      clock,
      env: {
        ...OAUTH_ENV,
        RATE_LIMIT_MODE: 'enforce',
        // Documents on loopback may be fetched (the silent port stands for a slow client host).
        OAUTH_CLIENT_METADATA_LOOPBACK: 'on',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await silent?.close();
  });

  const records = () => t.database.db.prisma.oAuthRecord.groupBy({ by: ['kind'], _count: true });

  it('5,000 unauthenticated registrations and authorizations from one address leave at most 30 records and 20 outbound connections', async () => {
    const documentId = `http://127.0.0.1:${silent.port}/client.json`;
    const statuses = new Map<number, number>();
    const note = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    let registered: string | null = null;
    for (let batch = 0; batch < 100; batch++) {
      const requests: Promise<void>[] = [];
      for (let i = 0; i < 25; i++) {
        requests.push(
          t
            .call('POST', '/oauth/register', {
              body: { client_name: 'Flood', redirect_uris: [REDIRECT_URI], padding: 'x'.repeat(4000) },
            })
            .then((res) => {
              note(res.status);
              if (res.status === 201) registered ??= res.body.client_id;
            }),
        );
        const clientId = i % 2 === 0 ? documentId : (registered ?? 'unknown');
        requests.push(
          t.app
            .fetch(
              new Request(authorizationUrl(ORIGIN, { client_id: clientId, resource: `${ORIGIN}/v1/mcp/dep_x` }), { redirect: 'manual' }),
            )
            .then(async (res) => {
              note(res.status);
              await res.body?.cancel();
            }),
        );
      }
      await Promise.all(requests);
    }
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(5000);
    expect(statuses.get(429)).toBeGreaterThan(4900);
    const kinds = Object.fromEntries((await records()).map((r) => [r.kind, r._count]));
    // The budgets: 5 registrations and 20 authorizations a minute from one address.
    expect(kinds.Client ?? 0).toBeLessThanOrEqual(5);
    // Each registration stores a client and its registration token, each authorization at most an interaction.
    const total = Object.values(kinds).reduce((a, b) => a + b, 0);
    expect(total, JSON.stringify(kinds)).toBeLessThanOrEqual(2 * 5 + 20);
    expect(silent.connections()).toBeLessThanOrEqual(20);
    // Padding and other unknown metadata were not stored.
    const stored = await t.database.db.prisma.oAuthRecord.findMany({ where: { kind: 'Client' }, select: { payload: true } });
    for (const row of stored) expect(JSON.stringify(row.payload)).not.toContain('xxxx');
  });

  it('a refused registration leaves nothing behind', async () => {
    const before = await t.database.db.prisma.oAuthRecord.count();
    const refused = await t.call('POST', '/oauth/register', { body: { client_name: 'Late', redirect_uris: [REDIRECT_URI] } });
    expect(refused.status).toBe(429);
    expect(await t.database.db.prisma.oAuthRecord.count()).toBe(before);
  });
});

describe('registration bounds and the sweep', () => {
  let t: TestApp;
  const clock = new MovableClock();

  // Starts a service of its own, on a clock of its own: a file has one fixture service, the one of
  // the last describe.
  beforeAll(async () => {
    t = await startTestApp({ clock, env: OAUTH_ENV });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('clients that never got a grant are swept after a day', async () => {
    const first = await registerClient(t.app, ORIGIN, { client_name: 'Unused' });
    clock.offsetMs += 25 * 60 * 60 * 1000;
    const next = await registerClient(t.app, ORIGIN, { client_name: 'Next' });
    const left = await t.database.db.prisma.oAuthRecord.findMany({ select: { id: true, kind: true } });
    // The new client and its registration token; nothing of the first.
    expect(left.filter((r) => r.kind === 'Client').map((r) => r.id)).toEqual([`Client:${next}`]);
    expect(left.map((r) => r.kind).sort(), JSON.stringify(left)).toEqual(['Client', 'RegistrationAccessToken']);
    expect(left.map((r) => r.id)).not.toContain(`Client:${first}`);
  });

  it('body size, redirect URI count, client_name length, refused metadata', async () => {
    const big = await t.call('POST', '/oauth/register', {
      body: { redirect_uris: [REDIRECT_URI], client_name: 'b', pad: 'x'.repeat(9000) },
    });
    expect(big.status).toBe(413);
    const many = await t.call('POST', '/oauth/register', {
      body: { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${1000 + i}/cb`) },
    });
    expect(many.body.error_description).toMatch(/at most 10/);
    const sector = await t.call('POST', '/oauth/register', {
      body: { redirect_uris: [REDIRECT_URI], sector_identifier_uri: 'https://127.0.0.1:9/sector.json' },
    });
    expect(sector.status).toBe(400);
    expect(sector.body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'sector_identifier_uri is not accepted by this service',
    });
  });
});

describe('the guarded outbound fetcher', () => {
  it('refuses special-use addresses in every written form', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'fd00::1',
      'fe80::1',
      '64:ff9b::7f00:1',
    ]) {
      expect(isSpecialUseAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:4700::1111']) expect(isSpecialUseAddress(address), address).toBe(false);
  });

  it('refuses before connecting: literal, decimal and hex forms, and a name that resolves to loopback', async () => {
    const silent = await silentPort();
    try {
      const targets = [
        `https://127.0.0.1:${silent.port}/`,
        `https://2130706433:${silent.port}/`,
        `https://0x7f.0.0.1:${silent.port}/`,
        `https://017700000001:${silent.port}/`,
        `https://[::ffff:127.0.0.1]:${silent.port}/`,
        `https://localhost:${silent.port}/`,
      ];
      // A name of this machine in its hosts file resolves to loopback: refused after resolving, before connecting.
      const own = hostname();
      const ownAddress = await lookup(own).catch(() => null);
      if (ownAddress && isSpecialUseAddress(ownAddress.address)) targets.push(`https://${own}:${silent.port}/`);
      for (const target of targets) {
        await expect(guardedFetch(target), target).rejects.toMatchObject({ reason: 'address' });
      }
      expect(silent.connections()).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it('bounds time and size (the test switch lets it reach loopback)', async () => {
    const silent = await silentPort();
    const big: HttpServer = createHttpServer((_req, res) => res.end('x'.repeat(10_000)));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      await expect(guardedFetch(`http://127.0.0.1:${silent.port}/`, { allowLoopback: true, timeoutMs: 300 })).rejects.toMatchObject({
        reason: 'timeout',
      });
      expect(Date.now() - started).toBeLessThan(2000);
      await expect(
        guardedFetch(`http://127.0.0.1:${(big.address() as { port: number }).port}/`, { allowLoopback: true, maxBytes: 5 * 1024 }),
      ).rejects.toMatchObject({ reason: 'size' });
      await expect(guardedFetch(`http://example.com/`)).rejects.toMatchObject({ reason: 'scheme' });
    } finally {
      await silent.close();
      await new Promise<void>((resolve) => big.close(() => resolve()));
    }
  });
});

describe('known IDE clients without egress', () => {
  pinnedTest(
    "Claude Code's client ID reaches the consent page from the pinned copy (loopback callback on any port)",
    async ({ service: t, dep }) => {
      const browser = createBrowser(t.app, ORIGIN);
      const page = await toConsent(
        browser,
        authorizationUrl(ORIGIN, {
          client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
          redirect_uri: 'http://localhost:41234/callback',
          scope: 'mcp offline_access',
          resource: `${ORIGIN}/v1/mcp/${dep}`,
        }),
        'ide-user@example.com',
      );
      const html = await page.response.text();
      expect(page.response.status, html.slice(0, 400)).toBe(200);
      expect(html).toContain('<q><bdi>Claude Code</bdi></q>');
      expect(html).toContain('Name published by <strong>claude.ai</strong>');
    },
  );

  pinnedTest(
    'once connected, Claude Code is listed under Connected applications by the name the consent page gave it',
    async ({ service: t, dep }) => {
      const browser = createBrowser(t.app, ORIGIN);
      const { verifier, challenge } = pkcePair();
      const redirectUri = 'http://localhost:41235/callback';
      const clientId = 'https://claude.ai/oauth/claude-code-client-metadata';
      const resource = `${ORIGIN}/v1/mcp/${dep}`;
      const consent = await toConsent(
        browser,
        authorizationUrl(ORIGIN, {
          client_id: clientId,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          scope: 'mcp offline_access',
          resource,
        }),
        'ide-user@example.com',
      );
      const back = await answerConsent(browser, consent, 'confirm');
      expect(back.html).toContain('<q><bdi>Claude Code</bdi></q>');
      const code = new URL(back.url).searchParams.get('code')!;
      const issued = await tokenRequest(t.app, ORIGIN, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
        resource,
      });
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const apps = await t.call('GET', '/v1/connected-apps', { token: await t.token('ide-user@example.com') });
      expect(apps.body.data).toContainEqual(expect.objectContaining({ clientId, clientName: 'Claude Code', deploymentIds: [dep] }));
    },
  );

  pinnedTest(
    "an operator's document is used the same way, and an unknown document client is refused with a page",
    async ({ service: t, dep }) => {
      const browser = createBrowser(t.app, ORIGIN);
      const page = await toConsent(
        browser,
        authorizationUrl(ORIGIN, {
          client_id: operatorClient,
          redirect_uri: 'http://127.0.0.1:5555/callback',
          resource: `${ORIGIN}/v1/mcp/${dep}`,
        }),
        'ide-user@example.com',
      );
      expect(await page.response.text()).toContain('<q><bdi>Operator IDE</bdi></q>');
      const unknown = await browser.request(
        authorizationUrl(ORIGIN, { client_id: 'https://ide.example/client.json', resource: `${ORIGIN}/v1/mcp/${dep}` }),
      );
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toContain('could not be identified');
    },
  );
});
