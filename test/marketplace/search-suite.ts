import { describe, expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import type { ServiceTest } from '../helpers/service-test.js';
import { parseSearchText, SEARCH_LIMITS } from '../../src/marketplace/query.js';
import { HOT_POPULARITY, SEARCH_TIERS, searchTierPage } from '../../src/marketplace/sql.js';
import { encodeCursor } from '../../src/pagination.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';
import { readAllPages } from '../helpers/marketplace.js';

/**
 * GET /v1/marketplace/search: full-text search over public workflows (issue 4.2), as tested on a
 * small catalogue (search.test.ts) and on one that takes the plans of a large catalogue from its
 * first workflow (search-large.test.ts): the same tests, the same results.
 */
export function searchSuite(catalogue: string, serviceTest: ServiceTest): void {
  describe(`marketplace search, ${catalogue}`, () => {
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
        // Each tier has rows on both sides of the hot band's edge (HOT_POPULARITY), which a page
        // reads first and alone when they fill it.
        const nameQuiet = await make('Lychee builder', [], 'plain', 0, 0);
        const namePopular = await make('Lychee runner', [], 'plain', 4, 0);
        const nameHot = await make('Lychee hot', [], 'plain', HOT_POPULARITY, 0);
        const nameHotter = await make('Lychee hotter', [], 'plain', HOT_POPULARITY - 2, 2);
        const nameBelow = await make('Lychee below', [], 'plain', HOT_POPULARITY - 1, 0);
        const tagHot = await make('Tagged hot', ['lychee'], 'plain', 0, HOT_POPULARITY);
        const tagForked = await make('Tagged one', ['lychee'], 'plain', 1, 2);
        const tagQuiet = await make('Tagged two', ['lychees'], 'plain', 0, 0);
        const restPopular = await make('Described one', [], 'About lychee trees', 30, 5);
        const restQuiet = await make('Described two', [], 'More lychee notes', 0, 0);
        const expected = [nameHotter, nameHot, nameBelow, namePopular, nameQuiet, tagHot, tagForked, tagQuiet, restPopular, restQuiet];
        expect(idsOf(await search(t, viewer, 'lychee', '&category=tiers'))).toEqual(expected);
        expect(idsOf(await search(t, viewer, 'lychee'))).toEqual(expected);
        // Every page size crosses the tiers and the hot band's edge at a different row.
        for (const limit of [1, 2, 3, 4, 5, 6])
          expect(await readAllPages(t, viewer, `/v1/marketplace/search?q=lychee&category=tiers&limit=${limit}`), `limit ${limit}`).toEqual(
            expected,
          );
        // Two words: a tier holds a workflow when the whole query matches its document.
        expect(idsOf(await search(t, viewer, 'lychee runner', '&category=tiers'))).toEqual([namePopular]);
        expect(idsOf(await search(t, viewer, 'tagged lychee', '&category=tiers'))).toEqual([tagHot, tagForked, tagQuiet]);
        expect(idsOf(await search(t, viewer, 'lychee h', '&category=tiers'))).toEqual([nameHotter, nameHot, tagHot]);
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

    serviceTest(
      'reads the rest of a tier only when its hot band does not fill the page',
      async ({ service: t, alice: owner, bob: viewer }) => {
        const make = async (name: string, subscribers: number) => {
          const w = await createWorkflow(t, owner, { name, category: 'bands', tags: [], visibility: 'public' });
          await t.database.db.prisma.workflow.update({ where: { id: w.workflowId }, data: { subscribersCount: subscribers } });
          return w.workflowId;
        };
        const hot = [await make('Plumcot one', HOT_POPULARITY + 2), await make('Plumcot two', HOT_POPULARITY)];
        const rest = [await make('Plumcot three', HOT_POPULARITY - 1), await make('Plumcot four', 0)];
        // The plan of the name tier's statement: the scans of workflows under a one-time filter are
        // the rest of the tier, and they run only when the hot band has fewer rows than the page needs.
        const restRuns = async (count: number) => {
          const statement = searchTierPage({
            tier: SEARCH_TIERS[0],
            tsquery: parseSearchText('plumcot').tsquery,
            hotBand: true,
            category: null,
            after: null,
            count,
          });
          const [row] = await t.database.db.prisma.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
            ...statement.values,
          );
          const loops: number[] = [];
          const walk = (node: Record<string, any>, gated: boolean) => {
            if (gated && node['Relation Name'] === 'workflows') loops.push(node['Actual Loops']);
            for (const child of node.Plans ?? [])
              if (child['Parent Relationship'] !== 'InitPlan') walk(child, gated || 'One-Time Filter' in node);
          };
          const plan = (row!['QUERY PLAN'] as Record<string, any>[])[0]!;
          walk(plan.Plan, false);
          expect(loops.length, JSON.stringify(plan)).toBeGreaterThan(0);
          return loops.some((n) => n > 0);
        };
        expect(await restRuns(2)).toBe(false);
        expect(await restRuns(3)).toBe(true);
        expect(idsOf(await search(t, viewer, 'plumcot', '&limit=2'))).toEqual(hot);
        expect(idsOf(await search(t, viewer, 'plumcot', '&limit=3'))).toEqual([...hot, rest[0]]);
        expect(await readAllPages(t, viewer, '/v1/marketplace/search?q=plumcot', 1)).toEqual([...hot, ...rest]);
      },
    );

    serviceTest(
      'reads the last of several words as the words it starts, including words published a moment ago',
      async ({ service: t, alice: owner, bob: viewer }) => {
        const body = (name: string, visibility: 'public' | 'private', description = 'plain') => ({
          name,
          description,
          category: 'Prefix Words',
          tags: ['quokka-tagged'],
          manifest: sampleManifest(),
          visibility,
        });
        const first = await createWorkflow(t, owner, body('Wombling quokkaflow', 'public', 'A quokkafy helper'));
        const hidden = await createWorkflow(t, owner, body('Wombling quokkazoo', 'private'));
        for (const [q, tier] of [
          ['wombling quokka', first.workflowId],
          ['wombling quokkaf', first.workflowId],
          ['wombling quokkafy', first.workflowId],
          ['wombling quokka-tag', first.workflowId],
        ] as const) {
          expect(idsOf(await search(t, viewer, q)), q).toEqual([tier]);
          expect(idsOf(await search(t, viewer, q, '&category=prefix%20words')), q).toEqual([tier]);
          expect(idsOf(await search(t, viewer, q, '&category=elsewhere')), q).toEqual([]);
        }
        expect(idsOf(await search(t, viewer, 'wombling quokkaz'))).toEqual([]);
        // The words a prefix may stand for: a public workflow's, never a private one's.
        const words = async (prefix: string) =>
          (
            await t.database.db.prisma.$queryRawUnsafe<{ word: string }[]>(
              'SELECT word FROM search_words WHERE word LIKE $1 ORDER BY word',
              `${prefix}%`,
            )
          ).map((r) => r.word);
        expect(await words('quokka')).toEqual(['quokka', 'quokka-tagged', 'quokkaflow', 'quokkafy']);
        // Made public, renamed, or created: its words are found by the very next search.
        await t.call('PUT', `/v1/workflows/${hidden.workflowId}`, { token: owner, body: body('Wombling quokkazoo', 'public') });
        expect(idsOf(await search(t, viewer, 'wombling quokkaz'))).toEqual([hidden.workflowId]);
        await t.call('PUT', `/v1/workflows/${hidden.workflowId}`, { token: owner, body: body('Wombling quokkanew', 'public') });
        expect(idsOf(await search(t, viewer, 'wombling quokkan'))).toEqual([hidden.workflowId]);
        expect(idsOf(await search(t, viewer, 'wombling quokkaz'))).toEqual([]);
        const third = await createWorkflow(t, owner, body('Wombling quokkathird', 'public'));
        expect(idsOf(await search(t, viewer, 'wombling quokkat'))).toEqual([third.workflowId]);
        expect((await words('quokka')).filter((w) => !w.includes('-'))).toEqual([
          'quokka',
          'quokkaflow',
          'quokkafy',
          'quokkanew',
          'quokkathird',
          'quokkazoo',
        ]);
        expect([...idsOf(await search(t, viewer, 'wombling quokka'))].sort()).toEqual(
          [first.workflowId, hidden.workflowId, third.workflowId].sort(),
        );
        // A prefix that starts more words than are named one by one is searched as a prefix.
        const many = Array.from(
          { length: SEARCH_LIMITS.maxPrefixWords + 5 },
          (_, i) => `zorbix${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
        );
        const wide = await createWorkflow(t, owner, body('Wombling wide', 'public', many.join(' ')));
        expect(idsOf(await search(t, viewer, 'wombling zorbix'))).toEqual([wide.workflowId]);
        expect(idsOf(await search(t, viewer, `wombling ${many[many.length - 1]}`))).toEqual([wide.workflowId]);
      },
    );
  });
}
