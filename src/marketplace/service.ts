import type { Prisma, User, Workflow } from '@prisma/client';
import { AppError } from '../errors.js';
import { badCursor, cursorDate, decodeCursor, pageLimit, toPage, type CursorValue, type Page } from '../pagination.js';
import type { ServiceDeps } from '../service-deps.js';
import { WORKFLOW_LIMITS } from '../workflows/input.js';
import { createCatalogueSize } from './catalogue-size.js';
import { parseSearchText, prefixAsWords, SEARCH_LIMITS } from './query.js';
import {
  BROWSE_ORDERS,
  browsePage,
  featuredItems,
  SEARCH_TIERS,
  searchTierPage,
  wordsStartingWith,
  type BrowseOrder,
  type ItemRow,
  type KeyRow,
} from './sql.js';

/**
 * The marketplace: every user's public workflows, browsed by a sort order, searched by text, or
 * picked as featured (docs/decisions.md, "Marketplace and reviews").
 *
 * The orders are computed keys and relevance, which Prisma cannot express, so each list is one SQL
 * statement that also joins the owner's public columns: a page costs one round trip however many
 * items and owners it holds. Every key is an integer, a timestamp or the id, so a cursor holds exact
 * values and the row-value comparison that resumes a page never loses or repeats a row, ties
 * included. The statements are in sql.ts; the service sends them itself, unnamed (Database's
 * readUnnamed), so each is planned for its own words and category, without Prisma's work around a
 * raw query.
 */

export const MARKETPLACE_SORTS = ['popular', 'recent', 'rating'] as const;
type MarketplaceSort = (typeof MARKETPLACE_SORTS)[number];

/**
 * Bayesian average: every workflow starts with `weight` imaginary ratings of `mean`, so a single
 * 5 (→ 3.64) ranks below forty ratings averaging 4.8 (→ 4.54).
 */
const RATING_PRIOR = { mean: 3.5, weight: 10 } as const;

export function bayesianRating(ratingSum: number, ratingCount: number): number {
  return (RATING_PRIOR.weight * RATING_PRIOR.mean + ratingSum) / (RATING_PRIOR.weight + ratingCount);
}

const FEATURED_RULE = {
  size: 10,
  minRatings: 3,
  minMean: 4,
  growthDays: 7,
  growthWeight: 0.25,
} as const;

export interface BrowseInput {
  category?: string | null;
  sort?: MarketplaceSort | null;
  limit?: number | null;
  cursor?: string | null;
}

export interface SearchInput {
  q: string;
  category?: string | null;
  limit?: number | null;
  cursor?: string | null;
}

/**
 * What a marketplace item reads of a workflow and its owner (the e-mail address never), as Prisma
 * names it: the selection of the MarketplaceWorkflow type, which the SQL below returns.
 */
export const MARKETPLACE_ITEM_SELECT = {
  id: true,
  name: true,
  description: true,
  visibility: true,
  category: true,
  tags: true,
  currentVersion: true,
  forksCount: true,
  subscribersCount: true,
  ratingSum: true,
  ratingCount: true,
  publishedAt: true,
  createdAt: true,
  updatedAt: true,
  checkFindings: true,
  owner: { select: { id: true, displayName: true } },
} as const satisfies Prisma.WorkflowSelect;

/** A marketplace item: the workflow summary of spec 2.3 with its owner's public columns. */
export type MarketplaceItem = Pick<
  Workflow,
  | 'id'
  | 'name'
  | 'description'
  | 'visibility'
  | 'category'
  | 'tags'
  | 'currentVersion'
  | 'forksCount'
  | 'subscribersCount'
  | 'ratingSum'
  | 'ratingCount'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
  | 'checkFindings'
> & { owner: Pick<User, 'id' | 'displayName'> };

/** When a public workflow was (last) published: rows from before that was recorded count their creation. */
export function publishedAtOf(w: Pick<Workflow, 'publishedAt' | 'createdAt'>): Date {
  return w.publishedAt ?? w.createdAt;
}

function toItem(r: ItemRow): MarketplaceItem {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    visibility: r.visibility,
    category: r.category,
    tags: r.tags ?? [],
    currentVersion: r.current_version,
    forksCount: r.forks_count,
    subscribersCount: r.subscribers_count,
    ratingSum: r.rating_sum,
    ratingCount: r.rating_count,
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    checkFindings: r.check_findings as MarketplaceItem['checkFindings'],
    owner: { id: r.owner_id, displayName: r.owner_display_name },
  };
}

/** What a sort order's page cursor holds and how it is read off the page's last row. */
interface SortPlan {
  order: BrowseOrder;
  shape: readonly ('string' | 'number')[];
  cursorOf(row: KeyRow): CursorValue[];
  /** The key values the statement is sent, from a cursor's (checked) values; the values themselves without it. */
  keysOf?(values: CursorValue[]): CursorValue[];
}

const SORTS: Record<MarketplaceSort, SortPlan> = {
  popular: { order: BROWSE_ORDERS.popular, shape: ['number', 'string'], cursorOf: (r) => [r.k1 as number, r.id] },
  recent: {
    order: BROWSE_ORDERS.recent,
    shape: ['string', 'string'],
    cursorOf: (r) => [(r.k1 as Date).toISOString(), r.id],
    keysOf: ([at, id]) => [cursorTime(at!), id!],
  },
  rating: { order: BROWSE_ORDERS.rating, shape: ['number', 'number', 'string'], cursorOf: (r) => [r.k1 as number, r.k2 as number, r.id] },
};

const INT4_MAX = 2_147_483_647;

/**
 * decodeCursor checks the shape; this also keeps every value one PostgreSQL accepts for its
 * key's type (a 32-bit integer, text without NUL), so a forged cursor is a 400, never a
 * database error.
 */
function readCursor(cursor: string, kind: string, shape: readonly ('string' | 'number')[]): CursorValue[] {
  const values = decodeCursor(cursor, kind, shape);
  for (const v of values) {
    if (typeof v === 'number' && (!Number.isInteger(v) || Math.abs(v) > INT4_MAX)) throw badCursor();
  }
  return values;
}

/** A cursor's time as the ISO text PostgreSQL parses, or a 400. */
function cursorTime(value: CursorValue): string {
  return cursorDate(value).toISOString();
}

/** The category asked for, or null for every category (blank); the match ignores case. */
function wantedCategory(category: string | null | undefined): string | null {
  const wanted = (category ?? '').trim();
  if (!wanted) return null;
  // eslint-disable-next-line no-control-regex -- NUL and other control characters are what is refused
  if (wanted.length > WORKFLOW_LIMITS.category || /[\u0000-\u001f]/.test(wanted)) {
    const message = `category must be at most ${WORKFLOW_LIMITS.category} characters, without control characters`;
    throw new AppError('VALIDATION_ERROR', message, { fields: [{ field: 'category', message }] });
  }
  return wanted;
}

export function createMarketplaceService({ db, clock, config }: ServiceDeps) {
  const catalogue = createCatalogueSize(db, config.marketplaceLargeFrom);

  function pageOf<R extends ItemRow>(rows: R[], limit: number, kind: string, cursorOf: (row: R) => CursorValue[]): Page<MarketplaceItem> {
    return toPage(rows, limit, kind, cursorOf, toItem);
  }

  async function browse(input: BrowseInput): Promise<Page<MarketplaceItem>> {
    const sort = input.sort ?? 'popular';
    const plan = SORTS[sort];
    const limit = pageLimit(input.limit);
    const kind = `marketplace:${sort}`;
    let after: CursorValue[] | null = null;
    if (input.cursor) {
      const values = readCursor(input.cursor, kind, plan.shape);
      after = plan.keysOf ? plan.keysOf(values) : values;
    }
    const rows = await db.readUnnamed<KeyRow>(
      browsePage({ order: plan.order, category: wantedCategory(input.category), after, count: limit + 1 }),
    );
    return pageOf(rows, limit, kind, plan.cursorOf);
  }

  /**
   * Full-text search, best match first: the relevance tiers of SEARCH_TIERS (name, then name, tags
   * and category, then the whole document), each in popularity order, then the id. A page reads the
   * tiers from the cursor's one down until it has its rows, one statement a tier. In a large
   * catalogue (catalogue-size.ts), each tier reads its hot band first, and a search of several
   * words first reads the words its last word starts (wordsStartingWith), so that GIN is asked for
   * them by name rather than for the union of a prefix (prefixAsWords). The documents are
   * generated columns, so a workflow made public, private or deleted is found or gone by the very
   * next search.
   */
  async function search(input: SearchInput): Promise<Page<MarketplaceItem>> {
    const terms = parseSearchText(input.q);
    const limit = pageLimit(input.limit);
    const kind = `search:${terms.digest}`;
    let from: { tier: number; popularity: number; id: string } | null = null;
    if (input.cursor) {
      const [tier, popularity, id] = readCursor(input.cursor, kind, ['number', 'number', 'string']) as [number, number, string];
      if (!SEARCH_TIERS.some((t) => t.tier === tier)) throw badCursor();
      from = { tier, popularity, id };
    }
    const category = wantedCategory(input.category);
    const large = await catalogue.large();
    const expanded =
      large && terms.terms.length > 1
        ? prefixAsWords(
            terms,
            (await db.readUnnamed<{ word: string }>(wordsStartingWith(terms.prefix, SEARCH_LIMITS.maxPrefixWords))).map((r) => r.word),
          )
        : null;
    const rows: (ItemRow & { tier: number; popularity: number })[] = [];
    for (const tier of SEARCH_TIERS) {
      if (from && tier.tier > from.tier) continue;
      const after = from && tier.tier === from.tier ? { popularity: from.popularity, id: from.id } : null;
      rows.push(
        ...(await db.readUnnamed<ItemRow & { tier: number; popularity: number }>(
          searchTierPage({ tier, tsquery: terms.tsquery, expanded, hotBand: large, category, after, count: limit + 1 - rows.length }),
        )),
      );
      if (rows.length > limit) break;
    }
    return pageOf(rows, limit, kind, (r) => [r.tier, r.popularity, r.id]);
  }

  /**
   * A short list: public workflows with at least 3 ratings averaging 4 or more, scored by their
   * Bayesian rating plus 0.25 × ln(1 + subscriptions added in the last 7 days), at most one per
   * owner. The same data at the same time gives the same list.
   */
  async function featured(): Promise<Page<MarketplaceItem>> {
    const since = new Date(clock.now().getTime() - FEATURED_RULE.growthDays * 86_400_000).toISOString();
    const rows = await db.readUnnamed<ItemRow>(featuredItems({ ...FEATURED_RULE, since }));
    return { data: rows.map(toItem), pagination: { nextCursor: null, hasMore: false, count: rows.length } };
  }

  return { browse, search, featured };
}
