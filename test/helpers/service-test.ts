import { test } from 'vitest';
import { startTestApp, type TestApp } from './app.js';

/**
 * `test` with a service and its users as fixtures, in place of the copied
 * `beforeAll(startTestApp…)` / `afterAll(close)` of each file:
 *
 *   serviceTest('…', async ({ service, alice, bob }) => { … });
 *
 * Every fixture is set up once per test file, on first use, and the service is closed (its
 * database dropped) when the file's tests are done. A file's tests therefore share one service
 * and one database, as they did with `beforeAll`. Each user fixture is a development-issuer token
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

/** `serviceTest` on a service started with these environment variables (for instance, a setting under test). */
export function serviceTestWith(env: Record<string, string> = {}) {
  return test.extend<ServiceFixtures>({
    service: [
      // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter
      async ({}, use) => {
        const service = await startTestApp({ env });
        try {
          await use(service);
        } finally {
          await service.close();
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
