import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { parseSearchText } from '../../src/marketplace/query.js';
import { encodeCursor } from '../../src/pagination.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';
import { readAllPages } from '../helpers/marketplace.js';

/** GET /v1/marketplace/search: full-text search over public workflows (issue 4.2). */
describe('marketplace search', () => {
  const search = (t: TestApp, viewer: string, q: string, extra = '') =>
    t.call('GET', `/v1/marketplace/search?q=${encodeURIComponent(q)}${extra}`, { token: viewer });
  const idsOf = (res: { body: any }) => res.body.data.map((w: any) => w.workflowId);

  serviceTest(
    'finds by name, tags, category, description, intent and step names, with partly typed words',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const w = await createWorkflow(t, owner, {
        name: 'Zephyrine deploy helper',
        description: 'Moves quixotically through staging',
        category: 'Xylocategory',
        tags: ['wombatic', 'multi-word tag'],
        visibility: 'public',
        manifest: sampleManifest({
          intent: 'Orchestrate the jabberwocky rollout',
          steps: [{ id: 'one', name: 'Frobnicate the gizmo', action: 'code_agent' }],
        }),
      });
      for (const q of [
        'zephyrine',
        'Zephyr',
        'zephyrine depl',
        'wombat',
        'xylocat',
        'quixot',
        'jabberwock',
        'frobnic',
        'gizmo',
        'ZEPHYRINE HELPER',
      ]) {
        const res = await search(t, viewer, q);
        expect(res.status, q).toBe(200);
        expect(idsOf(res), q).toContain(w.workflowId);
      }
      // Every word must match (AND): a second word that matches nothing finds nothing.
      expect(idsOf(await search(t, viewer, 'zephyrine nonexistentword'))).toEqual([]);
      expect((await search(t, viewer, 'zephyrine')).text).not.toContain('search-owner@example.com');
    },
  );

  serviceTest("matches prefixes while typing: 'revi' finds 'review'", async ({ service: t, alice: owner, bob: viewer }) => {
    const w = await createWorkflow(t, owner, {
      name: 'Pullrequest reviewer',
      visibility: 'public',
      category: 'prefix',
      description: 'review helper',
      tags: [],
    });
    for (const q of ['p', 'pull', 'pullreq', 'revi', 'review', 'reviewer'])
      expect(idsOf(await search(t, viewer, q, '&category=prefix')), q).toContain(w.workflowId);
    expect(idsOf(await search(t, viewer, 'reviewers', '&category=prefix'))).toEqual([]);
  });

  serviceTest('ranks a name match above a description match', async ({ service: t, alice: owner, bob: viewer }) => {
    const inDescription = await createWorkflow(t, owner, {
      name: 'Something else',
      description: 'Handles the kumquat case',
      category: 'relevance',
      tags: [],
      visibility: 'public',
    });
    const inName = await createWorkflow(t, owner, {
      name: 'Kumquat pipeline',
      description: 'Does things',
      category: 'relevance',
      tags: [],
      visibility: 'public',
    });
    const inTags = await createWorkflow(t, owner, {
      name: 'Third one',
      description: 'Does other things',
      category: 'relevance',
      tags: ['kumquat'],
      visibility: 'public',
    });
    expect(idsOf(await search(t, viewer, 'kumquat'))).toEqual([inName.workflowId, inTags.workflowId, inDescription.workflowId]);
    expect(idsOf(await search(t, viewer, 'kumq', '&category=relevance'))).toEqual([
      inName.workflowId,
      inTags.workflowId,
      inDescription.workflowId,
    ]);
  });

  serviceTest(
    'matches every word but the last as a whole word, and the last as the start of one',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const w = await createWorkflow(t, owner, { name: 'Quartzline reviewer kit', category: 'wholewords', visibility: 'public' });
      for (const q of ['quartzline revi', 'reviewer quartz', 'kit reviewer quartzline', 'quartzline reviewer kit'])
        expect(idsOf(await search(t, viewer, q, '&category=wholewords')), q).toEqual([w.workflowId]);
      // A word followed by another is finished: it no longer matches as the start of a longer word.
      for (const q of ['quartz reviewer', 'revi kit']) expect(idsOf(await search(t, viewer, q, '&category=wholewords')), q).toEqual([]);
    },
  );

  serviceTest(
    'searches within a category however it is written, and a category never matches as a word of the name',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const odd = "It's a\\Back-slash/Ünï = cat";
      const inOdd = await createWorkflow(t, owner, { name: 'Marmaladex tool', category: odd, visibility: 'public' });
      const elsewhere = await createWorkflow(t, owner, { name: 'Quincefold other', category: 'marmaladex', visibility: 'public' });
      await t.database.db.prisma.workflow.update({ where: { id: elsewhere.workflowId }, data: { subscribersCount: 50 } });
      const inCategory = (c: string) => `&category=${encodeURIComponent(c)}`;
      expect(idsOf(await search(t, viewer, 'marmal', inCategory(odd)))).toEqual([inOdd.workflowId]);
      expect(idsOf(await search(t, viewer, 'tool marmal', inCategory(odd.toUpperCase().replace('ÜNÏ', 'Ünï'))))).toEqual([
        inOdd.workflowId,
      ]);
      expect(idsOf(await search(t, viewer, 'marmal', inCategory('marmaladex')))).toEqual([elsewhere.workflowId]);
      expect(idsOf(await search(t, viewer, 'marmal', inCategory('marmal')))).toEqual([]);
      // "Marmaladex tool" matches by its name, the more popular "Quincefold other" only by its
      // category: the name tier comes first, so the category's words are not part of the name's.
      expect(idsOf(await search(t, viewer, 'marmaladex'))).toEqual([inOdd.workflowId, elsewhere.workflowId]);
      expect(idsOf(await search(t, viewer, 'quincefold', inCategory('MARMALADEX')))).toEqual([elsewhere.workflowId]);
      // A category holding "=" is still one category: "jamjar=quince" is not "jamjar" with the word "quince".
      const withEquals = await createWorkflow(t, owner, { name: 'Plumtreex thing', category: 'Jamjar=Quince', visibility: 'public' });
      expect(idsOf(await search(t, viewer, 'quince', inCategory('jamjar')))).toEqual([]);
      expect(idsOf(await search(t, viewer, 'plumtreex', inCategory('jamjar')))).toEqual([]);
      expect(idsOf(await search(t, viewer, 'plumtreex', inCategory('jamjar=quince')))).toEqual([withEquals.workflowId]);
    },
  );

  serviceTest(
    'orders each relevance tier by popularity (subscribers + 2 × forks), and pages across the tiers without gaps or repeats',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const make = async (name: string, tags: string[], description: string, subscribers: number, forks: number) => {
        const w = await createWorkflow(t, owner, { name, description, category: 'tiers', tags, visibility: 'public' });
        await t.database.db.prisma.workflow.update({
          where: { id: w.workflowId },
          data: { subscribersCount: subscribers, forksCount: forks },
        });
        return w.workflowId;
      };
      // Name tier, then tags, then the rest of the document; within each, popularity then the id.
      const nameQuiet = await make('Lychee builder', [], 'plain', 0, 0);
      const namePopular = await make('Lychee runner', [], 'plain', 4, 0);
      const tagForked = await make('Tagged one', ['lychee'], 'plain', 1, 2);
      const tagQuiet = await make('Tagged two', ['lychees'], 'plain', 0, 0);
      const restPopular = await make('Described one', [], 'About lychee trees', 30, 5);
      const restQuiet = await make('Described two', [], 'More lychee notes', 0, 0);
      const expected = [namePopular, nameQuiet, tagForked, tagQuiet, restPopular, restQuiet];
      expect(idsOf(await search(t, viewer, 'lychee', '&category=tiers'))).toEqual(expected);
      // Every page size crosses the tiers at a different row.
      for (const limit of [1, 2, 3, 4, 5])
        expect(await readAllPages(t, viewer, `/v1/marketplace/search?q=lychee&category=tiers&limit=${limit}`), `limit ${limit}`).toEqual(
          expected,
        );
      // Two words: a tier holds a workflow when the whole query matches its document.
      expect(idsOf(await search(t, viewer, 'lychee runner', '&category=tiers'))).toEqual([namePopular]);
      expect(idsOf(await search(t, viewer, 'tagged lychee', '&category=tiers'))).toEqual([tagForked, tagQuiet]);
      // A cursor naming a tier that does not exist is refused.
      const forged = encodeCursor(`search:${parseSearchText('lychee').digest}`, [9, 0, 'x']);
      expect((await search(t, viewer, 'lychee', `&cursor=${forged}`)).status).toBe(400);
    },
  );

  serviceTest(
    'finds a workflow made public by the very next search, and loses it when made private or deleted',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const w = await createWorkflow(t, owner, { name: 'Ephemeralon flow', visibility: 'private' });
      expect(idsOf(await search(t, viewer, 'ephemeralon'))).toEqual([]);
      const body = (vis: 'public' | 'private', name = 'Ephemeralon flow') => ({ name, manifest: w.manifest, visibility: vis });
      expect((await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: owner, body: body('public') })).status).toBe(200);
      expect(idsOf(await search(t, viewer, 'ephemeralon'))).toEqual([w.workflowId]);
      // A rename is searchable at once, and the old name is gone.
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: owner, body: body('public', 'Transientix flow') });
      expect(idsOf(await search(t, viewer, 'ephemeralon'))).toEqual([]);
      expect(idsOf(await search(t, viewer, 'transientix'))).toEqual([w.workflowId]);
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: owner, body: body('private', 'Transientix flow') });
      expect(idsOf(await search(t, viewer, 'transientix'))).toEqual([]);
      await t.call('PUT', `/v1/workflows/${w.workflowId}`, { token: owner, body: body('public', 'Transientix flow') });
      expect(idsOf(await search(t, viewer, 'transientix'))).toEqual([w.workflowId]);
      expect((await t.call('DELETE', `/v1/workflows/${w.workflowId}`, { token: owner })).status).toBe(200);
      expect(idsOf(await search(t, viewer, 'transientix'))).toEqual([]);
    },
  );

  serviceTest(
    'pages through results of equal relevance without gaps or repeats, and filters by category',
    async ({ service: t, alice: owner, bob: viewer }) => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i += 1)
        ids.push(
          (
            await createWorkflow(t, owner, {
              name: `Samename tie ${i}`,
              category: i < 5 ? 'tied' : 'other',
              tags: [],
              visibility: 'public',
            })
          ).workflowId,
        );
      const all = await readAllPages(t, viewer, '/v1/marketplace/search?q=samename');
      expect([...all].sort()).toEqual([...ids].sort());
      expect(new Set(all).size).toBe(all.length);
      const tied = await readAllPages(t, viewer, '/v1/marketplace/search?q=samename&category=tied');
      expect([...tied].sort()).toEqual(ids.slice(0, 5).sort());
      // Equal relevance and popularity: the id decides, highest first.
      expect(tied).toEqual([...tied].sort().reverse());
    },
  );

  serviceTest('searches operator soup and SQL as plain words, never as syntax', async ({ service: t, alice: owner, bob: viewer }) => {
    const w = await createWorkflow(t, owner, { name: 'Operatorish search target', visibility: 'public', tags: ['or'] });
    const soup = [
      "' OR 1=1 --",
      'a & | ! :*',
      '((operatorish',
      'operatorish))',
      '!operatorish',
      'operatorish:*',
      "operatorish' & 'x",
      'operatorish <-> target',
      '"operatorish"',
      "'; DROP TABLE workflows; --",
      'operatorish\\',
      'operatorish %',
      'operatorish _',
      '\u0000operatorish',
      'ｏｐｅｒａｔｏｒｉｓｈ',
    ];
    for (const q of soup) {
      const res = await search(t, viewer, q);
      expect(res.status, q).toBe(200);
      expect(res.body.success).toBe(true);
    }
    for (const q of [
      '((operatorish',
      '!operatorish',
      'operatorish:*',
      "operatorish' & 'target",
      '"operatorish"',
      'ｏｐｅｒａｔｏｒｉｓｈ',
      '\u0000operatorish',
    ]) {
      expect(idsOf(await search(t, viewer, q)), q).toEqual([w.workflowId]);
    }
    expect((await t.call('GET', '/v1/marketplace?limit=1', { token: viewer })).status).toBe(200);
  });

  serviceTest('refuses empty, blank, symbol-only and over-long text with 400', async ({ service: t, bob: viewer }) => {
    const cases = ['', '   ', '\t\n', '& | ! :*', '()', "'--'", 'x'.repeat(201), 'word '.repeat(2000)];
    for (const q of cases) {
      const res = await search(t, viewer, q);
      expect(res.status, JSON.stringify(q.slice(0, 20))).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields[0].field).toBe('q');
    }
    expect((await search(t, viewer, 'x'.repeat(10_000))).body.error.message).toMatch(/at most 200 characters/);
    const missing = await t.call('GET', '/v1/marketplace/search', { token: viewer });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/q is required/);
    expect((await search(t, viewer, 'x'.repeat(200))).status).toBe(200);
  });

  serviceTest('refuses bad limits and cursors, and a cursor of another search or of browsing', async ({ service: t, bob: viewer }) => {
    for (const extra of [
      '&limit=0',
      '&limit=500',
      '&limit=2.5',
      '&cursor=garbled!!',
      `&cursor=${encodeCursor('search:nope', [1, 1, 'x'])}`,
    ]) {
      const res = await search(t, viewer, 'samename', extra);
      expect(res.status, extra).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const next = (await search(t, viewer, 'samename', '&limit=1')).body.pagination.nextCursor;
    expect(next).toBeTruthy();
    expect((await search(t, viewer, 'samename', `&limit=1&cursor=${next}`)).status).toBe(200);
    expect((await search(t, viewer, 'samename tie', `&cursor=${next}`)).status).toBe(400);
    expect((await t.call('GET', `/v1/marketplace?cursor=${next}`, { token: viewer })).status).toBe(400);
    const browse = (await t.call('GET', '/v1/marketplace?limit=1', { token: viewer })).body.pagination.nextCursor;
    expect((await search(t, viewer, 'samename', `&cursor=${browse}`)).status).toBe(400);
  });
});
