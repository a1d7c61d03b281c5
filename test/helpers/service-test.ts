import { test } from 'vitest';
import { startTestApp, type TestApp } from './app.js';
import type { TestDatabase } from './database.js';

/**
 * `test` with a service and its users as fixtures, in place of the copied
 * `beforeAll(startTestApp…)` / `afterAll(close)` of each file:
 *
 *   serviceTest('…', async ({ service, alice, bob }) => { … });
 *
 * Every fixture is set up once per test file, on first use, and the service is closed (its
 * database dropped) when the file's tests are done. A file's tests therefore share one service
 * and one database, as they did with `beforeAll`. Vitest keeps a file's fixtures by name, so a file
 * has one service: a second `serviceTestWith` in the same file would be handed the first one's.
 * A file that needs a second configuration starts that service itself, and says so. Each user fixture is a development-issuer token
 * for its own e-mail address; the user is created with it (on the enterprise plan, see
 * TestApp.token).
 */
interface ServiceFixtures {
  service: TestApp;
  alice: string;
  bob: string;
  carol: string;
  dave: string;
}

function user(
  email: string,
): [({ service }: { service: TestApp }, use: (token: string) => Promise<void>) => Promise<void>, { scope: 'file' }] {
  return [async ({ service }, use) => use(await service.token(email)), { scope: 'file' }];
}

/** Servers the service talks to (an identity provider, a mail server, a stand-in for Stripe): started before it, closed after it. */
interface Peers {
  /** What the service is told about them: environment variables added to the fixture's own. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * What else the service is started with: startTestApp's options, the database made when the
 * fixture is (for instance, one that counts statements), and the peers it needs running first.
 */
export type ServiceOptions = Omit<NonNullable<Parameters<typeof startTestApp>[0]>, 'env' | 'database'> & {
  database?: () => Promise<TestDatabase>;
  peers?: () => Promise<Peers>;
};

/** `serviceTest` on a service started with these environment variables (for instance, a setting under test) and options. */
export function serviceTestWith(env: Record<string, string> = {}, options: ServiceOptions = {}) {
  const made = fixtures(env, options);
  // Vitest's `extend` adds the new fixtures to the list of the test it extends. The test files of a
  // worker share their modules, so extending one shared `serviceTest` would pile every file's
  // fixtures onto it, and one file's `token` would answer for another's: each extension starts from
  // a base of its own.
  const extend: typeof made.extend = (more) => fixtures(env, options).extend(more);
  return Object.assign(made, { extend });
}

/**
 * The service as the file's tests see it, and the means to let go of it. Vitest keeps every value a
 * file's fixtures gave until the whole run ends (by file, in the worker that ran it), and the test
 * files of a worker share it: a service kept so holds its embedded database's memory for good. The
 * tests get a view of the service instead, which lets go of it once the file is done.
 */
function releasable(service: TestApp): { view: TestApp; release(): void } {
  let live: TestApp | null = service;
  const current = (): TestApp => {
    if (!live) throw new Error("the test file's service is closed: its tests are done");
    return live;
  };
  const view = new Proxy({} as TestApp, {
    get(_target, key) {
      const target = current();
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (_target, key) => Reflect.has(current(), key),
  });
  return {
    view,
    release: () => {
      live = null;
    },
  };
}

function fixtures(env: Record<string, string>, options: ServiceOptions) {
  return test.extend<ServiceFixtures>({
    service: [
      // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter
      async ({}, use) => {
        const { database: makeDatabase, peers: startPeers, ...startOptions } = options;
        const peers = await startPeers?.();
        try {
          const database = await makeDatabase?.();
          try {
            const service = await startTestApp({ ...startOptions, env: { ...env, ...peers?.env }, database });
            const held = releasable(service);
            try {
              await use(held.view);
            } finally {
              held.release();
              await service.close();
            }
          } finally {
            await database?.drop();
          }
        } finally {
          await peers?.close();
        }
      },
      { scope: 'file' },
    ],
    alice: user('alice@example.com'),
    bob: user('bob@example.com'),
    carol: user('carol@example.com'),
    dave: user('dave@example.com'),
  });
}

export const serviceTest = serviceTestWith();

/** The test function of serviceTest and serviceTestWith. */
export type ServiceTest = typeof serviceTest;
