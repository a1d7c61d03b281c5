import type { PrismaClient, Workflow } from '@prisma/client';
import { describe, expect } from 'vitest';
import { DEV_ISSUER } from '../../src/auth/dev-issuer.js';
import { PLAN_OF_USER } from '../../src/billing/sql.js';
import type { Statement } from '../../src/db/statement.js';
import {
  BUNDLES_OF_DEPLOYMENTS,
  CONNECTION_KNOWN,
  deploymentsOfOwner,
  deploymentsOfTeam,
  ENDPOINT_TARGET,
  MANIFESTS_AT_VERSIONS,
  USAGE_SINCE,
} from '../../src/deployments/sql.js';
import { identityHash } from '../../src/users/identity-hash.js';
import { USER_SELECT } from '../../src/users/service.js';
import { USER_BY_IDENTITY, USER_WITH_COUNTS } from '../../src/users/sql.js';
import { WITHOUT_MANIFEST, type WorkflowQuery } from '../../src/workflows/service.js';
import { WORKFLOW_BY_ID, workflowsOfOwner, workflowSummariesOfOwner } from '../../src/workflows/sql.js';
import type { TestApp } from '../helpers/app.js';
import { initializeRequest } from '../helpers/mcp.js';
import { seedDeployment } from '../helpers/seed-plans.js';
import { seedManifest, seedPlan, seedSubscription, seedWorkflow, userIdOf } from '../helpers/seed.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/** The users (by id) and what they own, as the tests below compare it. */
interface World {
  alice: string;
  bob: string;
  carol: string;
  /** Alice's workflows, the last three created at the same moment. */
  own: string[];
  /** Bob's: one public (Alice and Carol subscribe to it), one private. */
  bobPublic: string;
  bobPrivate: string;
  /** Alice's deployments, the last two created at the same moment; Bob's one. */
  deployments: string[];
  bobDeployment: string;
  /** A team's deployments, one by Carol and one by Alice (not among Alice's personal ones). */
  teamId: string;
  teamDeployments: string[];
}

const today = new Date().toISOString().slice(0, 10);

async function seed(t: TestApp): Promise<World> {
  const prisma = t.database.db.prisma;
  const aliceToken = await t.token('alice@example.com');
  const alice = await userIdOf(t, aliceToken);
  const bob = await userIdOf(t, await t.token('bob@example.com'));
  const carol = await userIdOf(t, await t.token('carol@example.com'));

  // One workflow written through REST (its manifest text kept as written), the others seeded.
  const written = (await createWorkflow(t, aliceToken, { name: 'Written', visibility: 'public' })).workflowId as string;
  const own = [written];
  for (const [i, visibility] of (['private', 'public', 'private', 'public'] as const).entries()) {
    own.push(await seedWorkflow(t, alice, { name: `Own ${i}`, visibility }));
  }
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const moments = [at(1), at(2), at(3), at(3), at(3)];
  for (const [i, id] of own.entries()) await prisma.workflow.update({ where: { id }, data: { createdAt: moments[i] } });
  // A workflow of Alice's team: hers as author, not in her personal pages.
  const team = await t.call('POST', '/v1/teams', { token: aliceToken, body: { name: 'Statements' } });
  const teamWorkflow = await t.call('POST', '/v1/workflows', {
    token: aliceToken,
    body: { name: 'Team', manifest: seedManifest(), teamId: team.body.data.teamId },
  });
  expect(teamWorkflow.status, teamWorkflow.text).toBe(201);

  const bobPublic = await seedWorkflow(t, bob, {
    name: 'Shared',
    visibility: 'public',
    versions: [
      { version: '1.0.0', manifest: seedManifest('first') },
      { version: '1.1.0', manifest: seedManifest('second') },
    ],
  });
  // The workflow row is what holds the current version's text: here in another key order than its version row.
  const current = seedManifest('second');
  await prisma.workflow.update({
    where: { id: bobPublic },
    data: { manifestText: JSON.stringify(Object.fromEntries(Object.entries(current).reverse())) },
  });
  const bobPrivate = await seedWorkflow(t, bob, { name: 'Hidden' });
  await prisma.workflow.update({ where: { id: bobPrivate }, data: { createdAt: at(3) } });
  await seedSubscription(t, alice, bobPublic, { version: '1.0.0', enabledAdapters: ['adapter_two'] });
  await seedSubscription(t, carol, bobPublic, { isActive: false });

  const deployments = [
    await seedDeployment(t, alice, [own[1]!, bobPublic], ['2026-01-01', today]),
    await seedDeployment(t, alice, []),
    await seedDeployment(t, alice, [own[2]!, own[0]!]),
    await seedDeployment(t, alice, [own[3]!], [today]),
  ];
  const deploymentMoments = [at(1), at(2), at(2), at(2)];
  for (const [i, id] of deployments.entries()) await prisma.deployment.update({ where: { id }, data: { createdAt: deploymentMoments[i] } });
  await prisma.deployment.update({ where: { id: deployments[2]! }, data: { status: 'inactive' } });
  const bobDeployment = await seedDeployment(t, bob, [bobPrivate, bobPublic], [today]);
  await prisma.deployment.update({ where: { id: bobDeployment }, data: { createdAt: at(2) } });

  // A team's: a workflow of the team by Bob, Alice's public one (no entry of the deployment's owner) and Bob's shared one.
  const teamId = 'team_statements';
  await prisma.team.create({ data: { id: teamId, name: 'Statements', billingOwnerId: alice, createdAt: at(1), updatedAt: at(1) } });
  const bobTeamWorkflow = await seedWorkflow(t, bob, { name: 'Team own' });
  await prisma.workflow.update({ where: { id: bobTeamWorkflow }, data: { teamId } });
  const teamDeployments = [
    await seedDeployment(t, carol, [bobTeamWorkflow, own[1]!, bobPublic], [today]),
    await seedDeployment(t, alice, [bobTeamWorkflow]),
  ];
  for (const id of teamDeployments) await prisma.deployment.update({ where: { id }, data: { teamId, createdAt: at(2) } });

  // A connection counted through the endpoint itself.
  const initialize = initializeRequest({ clientName: 'claude-code', protocolVersion: '2025-11-25' });
  expect((await t.call('POST', `/v1/mcp/${deployments[0]}`, { token: aliceToken, body: initialize })).status).toBe(200);
  return { alice, bob, carol, own, bobPublic, bobPrivate, deployments, bobDeployment, teamId, teamDeployments };
}

const test = serviceTest.extend<{ prisma: PrismaClient; world: World }>({
  // Read through the service's view each time, so the file's fixtures do not keep the client (and
  // its database) once the file is done (test/helpers/service-test.ts).
  prisma: [
    async ({ service: t }, use) =>
      use(
        new Proxy({} as PrismaClient, {
          get: (_target, key) => {
            const client = t.database.db.prisma;
            const value: unknown = Reflect.get(client, key);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
          },
        }),
      ),
    { scope: 'file' },
  ],
  world: [async ({ service: t }, use) => use(await seed(t)), { scope: 'file' }],
});

/**
 * Every named statement against the Prisma query that would read the same thing, on the same
 * data and inputs: first pages, pages after a cursor in the middle of a run of equal timestamps
 * (so the id decides), filters, empty results and rows of other users that must not be read.
 * The Prisma queries are written out here rather than taken from the services, so a change to a
 * statement's WHERE or ORDER BY, or to the shared cursor rule, shows as a difference.
 */
describe('named statements return what Prisma would', () => {
  const read = <T = Record<string, unknown>>(t: TestApp, statement: Statement, values: unknown[]) =>
    t.database.db.read<T>(statement, values);

  /** A workflow as WORKFLOW_COLUMNS reads it: the jsonb manifest only when no written text is kept. */
  const asWorkflowRow = (w: Workflow) => ({ ...w, manifest: w.manifestText === null ? w.manifest : null });

  test('WORKFLOW_BY_ID reads the one workflow, whoever owns it, and nothing for an unknown id', async ({
    service: t,
    prisma,
    world: { own, bobPrivate },
  }) => {
    for (const id of [own[0]!, own[1]!, bobPrivate]) {
      const rows = await read<Workflow>(t, WORKFLOW_BY_ID, [id]);
      expect(rows).toHaveLength(1);
      expect(rows).toEqual([asWorkflowRow(await prisma.workflow.findUniqueOrThrow({ where: { id } }))]);
    }
    expect(await read(t, WORKFLOW_BY_ID, ['wf_unknown'])).toEqual([]);
  });

  /** The page a cursor after `row` continues with, for a list newest first by createdAt then id. */
  const after = (row: { createdAt: Date; id: string }) => ({
    OR: [{ createdAt: { lt: row.createdAt } }, { createdAt: row.createdAt, id: { lt: row.id } }],
  });
  const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

  test('workflowsOfOwner and workflowSummariesOfOwner page an owner’s workflows newest first, with and without visibility and cursor', async ({
    service: t,
    prisma,
    world: { alice, carol },
  }) => {
    const all = await prisma.workflow.findMany({ where: { ownerId: alice, teamId: null }, orderBy: newestFirst });
    expect(all).toHaveLength(5);
    // Cursors at every row, so some fall inside the run of equal timestamps and one after the last row.
    const cursors = all;
    // The summaries are Prisma's rows less the manifest (`omit`), keys absent as in Prisma's.
    for (const [statements, omit] of [
      [workflowsOfOwner, undefined],
      [workflowSummariesOfOwner, WITHOUT_MANIFEST],
    ] as const) {
      const expected = (rows: Partial<Workflow>[]) => (omit ? rows : (rows as Workflow[]).map(asWorkflowRow));
      let compared = 0;
      for (const visibility of [null, 'public', 'private'] as const) {
        for (const limit of [2, 6]) {
          const where = { ownerId: alice, teamId: null, ...(visibility ? { visibility } : {}) };
          const first = await read<Workflow>(t, statements(visibility !== null, false), [
            alice,
            ...(visibility ? [visibility] : []),
            limit,
          ]);
          expect(first).toEqual(expected(await prisma.workflow.findMany({ where, orderBy: newestFirst, take: limit, omit })));
          expect(first.length).toBeGreaterThan(0);
          for (const cursor of cursors) {
            const page = await read<Workflow>(t, statements(visibility !== null, true), [
              alice,
              ...(visibility ? [visibility] : []),
              cursor.createdAt,
              cursor.id,
              limit,
            ]);
            const prismaPage = await prisma.workflow.findMany({
              where: { ...where, ...after(cursor) },
              orderBy: newestFirst,
              take: limit,
              omit,
            });
            expect(page).toEqual(expected(prismaPage));
            compared += page.length;
          }
        }
      }
      expect(compared).toBeGreaterThan(20);
      // The last row's cursor: nothing after it.
      const last = all[all.length - 1]!;
      expect(await read(t, statements(false, true), [alice, last.createdAt, last.id, 10])).toEqual([]);
      // Bob's private workflow, created at the same moment as Alice's newest, is never on Alice's pages.
      expect(await read(t, statements(false, false), [carol, 10])).toEqual([]);
    }
  });

  test('the workflows page reads the same pages through its statement and through Prisma (one cursor rule)', async ({
    service: t,
    prisma,
    world: { alice },
  }) => {
    // Prisma's path is taken when the items' relations are asked for; no GraphQL field asks for one
    // today, so the service is called here with such a query.
    const viewer = await t.app.services.users.resolveViewer({
      issuer: DEV_ISSUER,
      subject: 'dev|alice@example.com',
      email: 'alice@example.com',
      name: null,
      issuedAt: Math.floor(Date.now() / 1000),
    });
    const walk = async (visibility: 'public' | 'private' | null, query: WorkflowQuery) => {
      const pages: { ids: string[]; nextCursor: string | null }[] = [];
      let cursor: string | null = null;
      for (let n = 0; n < 10; n += 1) {
        const page = await t.app.services.workflows.listWorkflows(viewer, { limit: 2, cursor, visibility }, query);
        pages.push({ ids: page.data.map((w) => w.id), nextCursor: page.pagination.nextCursor });
        cursor = page.pagination.nextCursor;
        if (!cursor) break;
      }
      return pages;
    };
    for (const visibility of [null, 'public', 'private'] as const) {
      const bySql = await walk(visibility, {});
      expect(bySql.flatMap((p) => p.ids)).toEqual(
        (
          await prisma.workflow.findMany({
            where: { ownerId: alice, teamId: null, ...(visibility ? { visibility } : {}) },
            orderBy: newestFirst,
          })
        ).map((w) => w.id),
      );
      expect(await walk(visibility, { include: { versions: true } })).toEqual(bySql);
      expect(await walk(visibility, { omit: WITHOUT_MANIFEST })).toEqual(bySql);
      expect(await walk(visibility, { include: { versions: true }, omit: WITHOUT_MANIFEST })).toEqual(bySql);
    }
  });

  test.for([
    ['deploymentsOfOwner', 'an owner’s personal', 4, 8],
    ['deploymentsOfTeam', 'a team’s', 2, 2],
  ] as const)(
    '%s pages %s deployments newest first, with and without status and cursor',
    async ([name, _what, count, least], { service: t, prisma, world: { alice, carol, teamId } }) => {
      const statements = name === 'deploymentsOfOwner' ? deploymentsOfOwner : deploymentsOfTeam;
      const holder = name === 'deploymentsOfOwner' ? alice : teamId;
      const whose = name === 'deploymentsOfOwner' ? { ownerId: alice, teamId: null } : { teamId };
      const all = await prisma.deployment.findMany({ where: whose, orderBy: newestFirst });
      expect(all).toHaveLength(count);
      let compared = 0;
      for (const status of [null, 'active', 'inactive'] as const) {
        for (const limit of [1, 5]) {
          const where = { ...whose, ...(status ? { status } : {}) };
          const first = await read(t, statements(status !== null, false), [holder, ...(status ? [status] : []), limit]);
          expect(first).toEqual(await prisma.deployment.findMany({ where, orderBy: newestFirst, take: limit }));
          if (status !== 'inactive' || name === 'deploymentsOfOwner') expect(first.length).toBeGreaterThan(0);
          for (const cursor of all) {
            const page = await read(t, statements(status !== null, true), [
              holder,
              ...(status ? [status] : []),
              cursor.createdAt,
              cursor.id,
              limit,
            ]);
            expect(page).toEqual(
              await prisma.deployment.findMany({ where: { ...where, ...after(cursor) }, orderBy: newestFirst, take: limit }),
            );
            compared += page.length;
          }
        }
      }
      expect(compared).toBeGreaterThan(least);
      expect(await read(t, statements(false, false), [name === 'deploymentsOfOwner' ? carol : 'team_unknown', 10])).toEqual([]);
    },
  );

  /**
   * A bundled workflow as the bundle statements name its columns, with the library entry of the
   * deployment's owner (or nulls) and, with `holder`, the deployment's owner and team.
   */
  async function bundledAsPrisma(prisma: PrismaClient, deploymentIds: string[], holder = false) {
    const links = await prisma.deploymentWorkflow.findMany({
      where: { deploymentId: { in: deploymentIds } },
      orderBy: [{ deploymentId: 'asc' }, { position: 'asc' }],
      include: { deployment: true, workflow: { include: { libraryEntries: true, versions: true, owner: true } } },
    });
    return links.map(({ deploymentId, deployment: d, workflow: w }) => {
      const e = w.libraryEntries.find((x) => x.userId === d.ownerId);
      // The version in use: the current one of an owned workflow, of the team's workflows and of a
      // public one a team's deployment bundles without a subscription; else the entry's.
      const current = w.ownerId === d.ownerId || (w.teamId !== null && w.teamId === d.teamId) || (d.teamId !== null && !e);
      const inUse = current ? w.currentVersion : e?.workflowVersion;
      const v = w.versions.find((x) => x.version === inUse);
      return {
        deploymentId,
        ...(holder ? { ownerId: d.ownerId, teamId: d.teamId } : {}),
        workflowId: w.id,
        workflowOwnerId: w.ownerId,
        workflowTeamId: w.teamId,
        workflowName: v?.name ?? w.name,
        workflowDescription: v?.description ?? w.description,
        versionCategory: v?.category ?? w.category,
        versionTags: v?.tags ?? w.tags,
        versionDigest: v?.digest ?? null,
        authorDisplayName: w.owner.displayName,
        visibility: w.visibility,
        moderationState: w.moderationState,
        moderationReason: w.moderationReason,
        currentVersion: w.currentVersion,
        workflowUpdatedAt: w.updatedAt,
        subscribersCount: w.subscribersCount,
        forksCount: w.forksCount,
        ratingSum: w.ratingSum,
        ratingCount: w.ratingCount,
        sourceType: e?.sourceType ?? null,
        isActive: e?.isActive ?? null,
        entryAdapters: e?.enabledAdapters ?? null,
        entryVersion: e?.workflowVersion ?? null,
      };
    });
  }

  test('BUNDLES_OF_DEPLOYMENTS reads the bundles in order with the owner’s library entries only', async ({
    service: t,
    prisma,
    world: { bobPublic, deployments, bobDeployment, teamDeployments },
  }) => {
    const rows = await read(t, BUNDLES_OF_DEPLOYMENTS, [deployments]);
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(await bundledAsPrisma(prisma, deployments, true));
    // A team's deployments: the team's workflow and a public one at their current versions, a subscription at its entry's.
    const teams = await read(t, BUNDLES_OF_DEPLOYMENTS, [teamDeployments]);
    expect(teams).toHaveLength(4);
    expect(teams).toEqual(await bundledAsPrisma(prisma, teamDeployments, true));
    // Carol's entry for Bob's shared workflow is not Alice's: Alice's subscription is what is read.
    expect(rows.filter((r) => r.workflowId === bobPublic)).toEqual([
      expect.objectContaining({ sourceType: 'subscribed', entryVersion: '1.0.0' }),
    ]);
    expect(await read(t, BUNDLES_OF_DEPLOYMENTS, [[deployments[1]!]])).toEqual([]);
    expect(await read(t, BUNDLES_OF_DEPLOYMENTS, [['dep_unknown']])).toEqual([]);
    // Bob's deployment as Bob uses it: his own entries, none of Alice's or Carol's.
    expect(await read(t, BUNDLES_OF_DEPLOYMENTS, [[bobDeployment]])).toEqual(await bundledAsPrisma(prisma, [bobDeployment], true));
  });

  test('ENDPOINT_TARGET reads a deployment with its bundle, one row of nulls without one, nothing when unknown', async ({
    service: t,
    prisma,
    world: { deployments, bobDeployment, teamDeployments },
  }) => {
    for (const id of [...deployments, bobDeployment, ...teamDeployments]) {
      const d = await prisma.deployment.findUniqueOrThrow({ where: { id } });
      const head = {
        deploymentId: d.id,
        ownerId: d.ownerId,
        name: d.name,
        description: d.description,
        enabledAdapters: d.enabledAdapters,
        status: d.status,
        allowAnonymous: d.allowAnonymous,
        teamId: d.teamId,
      };
      const bundle = (await bundledAsPrisma(prisma, [id])).map(({ deploymentId: _, ...w }) => ({ ...head, ...w }));
      const none = Object.fromEntries(Object.keys((await bundledAsPrisma(prisma, [deployments[0]!]))[0]!).map((k) => [k, null]));
      const { deploymentId: _, ...noWorkflow } = none;
      expect(await read(t, ENDPOINT_TARGET, [id])).toEqual(bundle.length ? bundle : [{ ...noWorkflow, ...head }]);
    }
    expect(await read(t, ENDPOINT_TARGET, ['dep_unknown'])).toEqual([]);
  });

  test('MANIFESTS_AT_VERSIONS reads each manifest at its version: current, recorded, gone, or no row', async ({
    service: t,
    prisma,
    world: { own, bobPublic },
  }) => {
    const pairs: [string, string][] = [
      [own[0]!, '1.0.0'],
      [own[1]!, '1.0.0'],
      [bobPublic, '1.1.0'],
      [bobPublic, '1.0.0'],
      [bobPublic, '9.9.9'],
      ['wf_unknown', '1.0.0'],
    ];
    const rows = await read<{ workflowId: string; version: string; manifestText: string | null }>(t, MANIFESTS_AT_VERSIONS, [
      pairs.map(([id]) => id),
      pairs.map(([, version]) => version),
    ]);
    const expected = [];
    for (const [id, version] of pairs) {
      const w = await prisma.workflow.findUnique({ where: { id } });
      if (!w) continue;
      if (version === w.currentVersion) {
        expected.push({ workflowId: id, version, manifest: w.manifest, text: w.manifestText });
        continue;
      }
      const v = await prisma.workflowVersion.findUnique({ where: { workflowId_version: { workflowId: id, version } } });
      expected.push({ workflowId: id, version, manifest: v?.manifest ?? null, text: v?.manifestText ?? null });
    }
    expect(expected).toHaveLength(5);
    const key = (r: { workflowId: string; version: string }) => `${r.workflowId}@${r.version}`;
    const byKey = (a: { workflowId: string; version: string }, b: { workflowId: string; version: string }) => key(a).localeCompare(key(b));
    expect(
      rows
        .map((r) => ({
          workflowId: r.workflowId,
          version: r.version,
          manifest: r.manifestText === null ? null : JSON.parse(r.manifestText),
        }))
        .sort(byKey),
    ).toEqual(expected.map(({ text: _, ...r }) => r).sort(byKey));
    // Written text is sent as written, byte for byte: the workflow row's for the current version.
    for (const r of expected.filter((e) => e.text !== null)) {
      expect(rows.find((row) => key(row) === key(r))?.manifestText).toBe(r.text);
    }
    const shared = await prisma.workflowVersion.findUniqueOrThrow({
      where: { workflowId_version: { workflowId: bobPublic, version: '1.1.0' } },
    });
    expect(rows.find((r) => r.workflowId === bobPublic && r.version === '1.1.0')?.manifestText).not.toBe(
      shared.manifestText ?? JSON.stringify(shared.manifest),
    );
  });

  test('CONNECTION_KNOWN finds exactly the counted connection key', async ({ service: t, prisma, world: { bobDeployment } }) => {
    const keys = await prisma.mcpConnection.findMany();
    expect(keys).toHaveLength(1);
    const k = keys[0]!;
    const day = k.day.toISOString().slice(0, 10);
    const probes: [string, string, string, string][] = [
      [k.deploymentId, k.adapter, k.caller, day],
      [k.deploymentId, k.adapter, k.caller, '2026-01-01'],
      [k.deploymentId, 'adapter_other', k.caller, day],
      [k.deploymentId, k.adapter, 'user:someone_else', day],
      [bobDeployment, k.adapter, k.caller, day],
    ];
    for (const [deploymentId, adapter, caller, probeDay] of probes) {
      const found = await prisma.mcpConnection.findUnique({
        where: { deploymentId_adapter_caller_day: { deploymentId, adapter, caller, day: new Date(`${probeDay}T00:00:00Z`) } },
      });
      expect(await read(t, CONNECTION_KNOWN, [deploymentId, adapter, caller, probeDay])).toEqual(found ? [{ one: 1 }] : []);
    }
  });

  test('USAGE_SINCE sums the connections of the asked deployments from a day on', async ({
    service: t,
    prisma,
    world: { deployments, bobDeployment },
  }) => {
    for (const since of ['2025-12-31', today, '2099-01-01']) {
      for (const ids of [deployments, [deployments[1]!], [bobDeployment, deployments[3]!]]) {
        const rows = await read<{ deploymentId: string; total: string }>(t, USAGE_SINCE, [ids, since]);
        const sums = await prisma.deploymentUsage.groupBy({
          by: ['deploymentId'],
          where: { deploymentId: { in: ids }, day: { gte: new Date(`${since}T00:00:00Z`) } },
          _sum: { count: true },
        });
        const byId = (a: { deploymentId: string }, b: { deploymentId: string }) => a.deploymentId.localeCompare(b.deploymentId);
        expect(rows.sort(byId)).toEqual(sums.map((s) => ({ deploymentId: s.deploymentId, total: String(s._sum.count) })).sort(byId));
      }
    }
    expect(await read(t, USAGE_SINCE, [deployments, '2025-12-31'])).toHaveLength(2);
  });

  test('USER_BY_IDENTITY reads the identity’s user and when an account of it was deleted, always in one row', async ({
    service: t,
    prisma,
    world: { alice },
  }) => {
    const deletedSubject = 'dev|gone@example.com';
    await prisma.deletedAccount.create({
      data: { identityHash: identityHash(DEV_ISSUER, deletedSubject), deletedAt: new Date('2026-02-01T00:00:00Z') },
    });
    for (const subject of ['dev|alice@example.com', 'dev|bob@example.com', deletedSubject, 'dev|nobody@example.com']) {
      const rows = await read(t, USER_BY_IDENTITY, [DEV_ISSUER, subject, identityHash(DEV_ISSUER, subject)]);
      const identity = await prisma.signInIdentity.findUnique({
        where: { issuer_subject: { issuer: DEV_ISSUER, subject } },
        select: { user: { select: { id: true, email: true } } },
      });
      const user = identity?.user;
      const deleted = await prisma.deletedAccount.findUnique({ where: { identityHash: identityHash(DEV_ISSUER, subject) } });
      expect(rows).toEqual([{ id: user?.id ?? null, email: user?.email ?? null, deletedAt: deleted?.deletedAt ?? null }]);
    }
    const [alicesRow] = await read<{ id: string }>(t, USER_BY_IDENTITY, [DEV_ISSUER, 'dev|alice@example.com', 'x']);
    expect(alicesRow!.id).toBe(alice);
  });

  test('USER_WITH_COUNTS reads a user with the counts of USER_SELECT, and nothing for an unknown user', async ({
    service: t,
    prisma,
    world: { alice, bob, carol },
  }) => {
    for (const id of [alice, bob, carol]) {
      const { _count, ...user } = await prisma.user.findUniqueOrThrow({ where: { id }, select: USER_SELECT });
      expect(await read(t, USER_WITH_COUNTS, [id])).toEqual([
        { ...user, workflowCount: _count.workflows, deploymentCount: _count.deployments, subscriptionCount: _count.library },
      ]);
    }
    expect((await read<{ workflowCount: number }>(t, USER_WITH_COUNTS, [alice]))[0]!.workflowCount).toBe(5);
    expect(await read(t, USER_WITH_COUNTS, ['usr_unknown'])).toEqual([]);
  });

  test('PLAN_OF_USER reads the subscription’s plan and status of the user asked, and nothing without one', async ({
    service: t,
    prisma,
    world: { alice, bob, carol },
  }) => {
    await seedPlan(t, bob, 'team', 'past_due');
    await seedPlan(t, carol, 'pro');
    for (const id of [alice, bob, carol, 'usr_unknown']) {
      const subscription = await prisma.billingSubscription.findUnique({ where: { userId: id }, select: { plan: true, status: true } });
      expect(await read(t, PLAN_OF_USER, [id])).toEqual(subscription ? [subscription] : []);
    }
    expect(await read(t, PLAN_OF_USER, [bob])).toEqual([{ plan: 'team', status: 'past_due' }]);
  });
});
