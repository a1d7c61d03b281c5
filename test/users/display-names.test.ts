import { afterAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/dev-issuer.js';
import { pseudonymOf } from '../../src/marketplace/identity.js';
import { startTestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import type { TestApp } from '../helpers/app.js';

/**
 * Names that cannot impersonate (docs/marketplace.md, "Names"): a display name is refused when it
 * equals, or is confusable with, another user's display name or handle, or hides characters;
 * other names, in any script, are accepted.
 */

const SET = 'mutation($n: String!) { setDisplayName(displayName: $n) { displayName } }';

async function setName(t: TestApp, token: string, name: string) {
  const res = await t.graphql(SET, { n: name }, token);
  return { name: res.body.data?.setDisplayName?.displayName as string | null | undefined, error: res.body.errors?.[0] };
}

async function pseudonym(t: TestApp, token: string): Promise<string> {
  const res = await t.graphql('{ me { userId } }', {}, token);
  return pseudonymOf(res.body.data.me.userId);
}

describe('a display name', () => {
  serviceTest(
    "cannot be another user's display name, in any case or with confusable letters",
    async ({ service: t, alice, bob, carol }) => {
      expect(await setName(t, alice, '  Alice   Martin ')).toEqual({ name: 'Alice Martin', error: undefined });
      expect(await setName(t, carol, 'Kim Lee')).toMatchObject({ name: 'Kim Lee' });
      const taken = [
        'Alice Martin', // equal
        'alice martin', // case variants
        'ALICE MARTIN',
        '\u0410lice Martin', // Cyrillic capital А for A
        'Alice M\u0430rtin', // Cyrillic small а for a
        'AIice Martin', // capital I for l
        'A1ice Martin', // digit one for l
        'Alice Martin\u00A0', // a no-break space is a space (trimmed)
        'Ａｌｉｃｅ Martin', // full-width letters (NFKC)
        'Kirn Lee', // rn for m
      ];
      for (const name of taken) {
        const { error } = await setName(t, bob, name);
        expect(error?.extensions.code, name).toBe('CONFLICT');
        expect(error?.message, name).toMatch(/another user's display name/);
      }
      // The holder may set it again, and once cleared it is free.
      expect(await setName(t, alice, 'Alice Martin')).toMatchObject({ name: 'Alice Martin' });
      expect(await setName(t, alice, '')).toEqual({ name: null, error: undefined });
      expect(await setName(t, bob, 'alice martin')).toMatchObject({ name: 'alice martin' });
      expect((await setName(t, alice, 'Alice Martin')).error?.extensions.code).toBe('CONFLICT');
    },
  );

  serviceTest("cannot be another user's handle, nor look like one", async ({ service: t, alice, bob }) => {
    const victim = await pseudonym(t, alice);
    const own = await pseudonym(t, bob);
    const lookalikes = [
      victim,
      victim.toUpperCase(),
      victim.replace('user', 'us\u0435r'), // Cyrillic е
      'user-zzzzzzzz', // the form of a handle, nobody's yet
      'user-rn0000000', // rn for m: looks like the handle user-m0000000
    ];
    for (const name of lookalikes) {
      const { error } = await setName(t, bob, name);
      expect(error?.extensions.code, name).toBe('VALIDATION_ERROR');
      expect(error?.extensions.details.fields[0], name).toMatchObject({ field: 'displayName', message: expect.stringMatching(/handle/) });
    }
    // One's own handle is one's own.
    expect(await setName(t, bob, own)).toMatchObject({ name: own });
    expect(await setName(t, bob, own.toUpperCase())).toMatchObject({ name: own.toUpperCase() });
  });

  serviceTest('cannot hold bidirectional controls or invisible characters', async ({ service: t, dave }) => {
    const hidden: [string, string][] = [
      ['Alice\u202Egpj.exe', 'U+202E'], // right-to-left override
      ['Bo\u200Bb', 'U+200B'], // zero-width space
      ['Eve\u2066x\u2069', 'U+2066'], // isolate
      ['Mallory\u{E0041}', 'U+E0041'], // tag character
      ['Trent\u00AD', 'U+00AD'], // soft hyphen
      ['Zed\u0007', 'U+0007'], // a control character
    ];
    for (const [name, code] of hidden) {
      const { error } = await setName(t, dave, name);
      expect(error?.extensions.code, code).toBe('VALIDATION_ERROR');
      expect(error?.message, code).toContain(code);
    }
    expect((await setName(t, dave, 'x'.repeat(51))).error?.extensions.code).toBe('VALIDATION_ERROR');
  });

  serviceTest('in any script, different from every other, is accepted', async ({ service: t, carol, dave }) => {
    const others = await Promise.all(['names-1@example.com', 'names-2@example.com', 'names-3@example.com'].map((e) => t.token(e)));
    const accepted: [string, string][] = [
      [carol, 'José García'],
      [dave, 'Zoë Ångström'],
      [others[0]!, '李小龍'],
      [others[1]!, 'Иван Петров'],
      [others[2]!, 'Ivan Petrov'],
    ];
    for (const [token, name] of accepted) expect(await setName(t, token, name), name).toEqual({ name, error: undefined });
  });

  serviceTest('from the identity provider is kept only when it breaks no rule', async ({ service: t, alice }) => {
    expect(await setName(t, alice, 'Provider Person')).toMatchObject({ name: 'Provider Person' });
    const me = async (email: string, name: string) => {
      const token = await signDevToken(t.dataDir, { email, name });
      const res = await t.graphql('{ me { displayName } }', {}, token);
      return res.body.data.me.displayName as string | null;
    };
    expect(await me('fresh-1@example.com', 'A fresh name')).toBe('A fresh name');
    expect(await me('fresh-2@example.com', 'provider person')).toBeNull();
    expect(await me('fresh-3@example.com', 'Sneaky\u202Etxt')).toBeNull();
    expect(await me('fresh-4@example.com', 'user-abcdefgh')).toBeNull();
  });
});

describe('display names written before names had keys', () => {
  // Its own lifecycle rather than the service fixture: rows are written into the first instance's
  // database, and a second instance started on that database settles them.
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('keep their names when they break no rule (the oldest account first), and lose them otherwise', async () => {
    first = await startTestApp();
    const prisma = first.database.db.prisma;
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
    const rows = [
      { id: 'usr_old00001', displayName: 'Grace Hopper', createdAt: at(1) },
      { id: 'usr_new00002', displayName: 'grace h\u043Epper', createdAt: at(2) }, // Cyrillic о: collides with the older one
      { id: 'usr_bidi0003', displayName: 'Mal\u202Elory', createdAt: at(3) },
      { id: 'usr_hand0004', displayName: 'user-0ld00001', createdAt: at(4) }, // looks like usr_old00001's handle
      { id: 'usr_mail0005', displayName: 'someone@example.com', createdAt: at(5) },
      { id: 'usr_fine0006', displayName: 'Ada Lovelace', createdAt: at(6) },
    ];
    for (const r of rows) await prisma.user.create({ data: { ...r, email: `${r.id}@legacy.example`, updatedAt: r.createdAt } });
    // The next start settles them.
    second = await startTestApp({ database: first.database });
    const after = await prisma.user.findMany({
      where: { email: { endsWith: '@legacy.example' } },
      orderBy: { createdAt: 'asc' },
      select: { displayName: true },
    });
    expect(after.map((u) => u.displayName)).toEqual(['Grace Hopper', null, null, null, 'someone@example.com', 'Ada Lovelace']);
    // And the settled names are taken.
    const token = await second.token('late@example.com');
    expect((await setName(second, token, 'ADA LOVELACE')).error?.extensions.code).toBe('CONFLICT');
  });
});
