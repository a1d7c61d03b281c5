import { Prisma } from '@prisma/client';
import type { User, Workflow } from '@prisma/client';
import { AppError } from '../errors.js';
import { badCursor, cursorDate, decodeCursor, pageLimit, toPage, type CursorValue, type Page } from '../pagination.js';
import type { ServiceDeps } from '../service-deps.js';
import { WORKFLOW_LIMITS, type Visibility } from '../workflows/input.js';
import { parseSearchText } from './query.js';

/**
 * The marketplace: every user's public workflows, browsed by a sort order, searched by text, or
 * picked as featured (docs/decisions.md, "Marketplace and reviews").
 *
 * The orders are computed keys and relevance, which Prisma cannot express, so each list is one SQL
 * statement that also joins the owner's public columns: a page costs one round trip however many
 * items and owners it holds. Every key is an integer, a timestamp or the id, so a cursor holds exact
 * values and the row-value comparison that resumes a page never loses or repeats a row, ties
 * included. The key expressions match the partial indexes of the marketplace_browse_indexes
 * migration character for character; keep them in step.
 */

export const MARKETPLACE_SORTS = ['popular', 'recent', 'rating'] as const;
export type MarketplaceSort = (typeof MARKETPLACE_SORTS)[number];

/**
 * Bayesian average: every workflow starts with `weight` imaginary ratings of `mean`, so a single
 * 5 (→ 3.64) ranks below forty ratings averaging 4.8 (→ 4.54).
 */
export const RATING_PRIOR = { mean: 3.5, weight: 10 } as const;

export function bayesianRating(ratingSum: number, ratingCount: number): number {
  return (RATING_PRIOR.weight * RATING_PRIOR.mean + ratingSum) / (RATING_PRIOR.weight + ratingCount);
}

export const FEATURED_RULE = {
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
> & { owner: Pick<User, 'id' | 'displayName'> };

/** When a public workflow was (last) published: rows from before that was recorded count their creation. */
export function publishedAtOf(w: Pick<Workflow, 'publishedAt' | 'createdAt'>): Date {
  return w.publishedAt ?? w.createdAt;
}

interface ItemRow {
  id: string;
  owner_id: string;
  owner_display_name: string | null;
  name: string;
  description: string;
  visibility: Visibility;
  category: string;
  tags: string[];
  current_version: string;
  forks_count: number;
  subscribers_count: number;
  rating_sum: number;
  rating_count: number;
  published_at: Date;
  created_at: Date;
  updated_at: Date;
}

// The users table is read for the display name only: the e-mail address is never selected.
const ITEM_COLUMNS = Prisma.sql`
  w.id, w.owner_id, u.display_name AS owner_display_name, w.name, w.description, w.visibility::text AS visibility,
  w.category, w.tags, w.current_version, w.forks_count, w.subscribers_count, w.rating_sum, w.rating_count,
  coalesce(w.published_at, w.created_at) AS published_at, w.created_at, w.updated_at`;

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
    owner: { id: r.owner_id, displayName: r.owner_display_name },
  };
}

interface KeyRow extends ItemRow {
  k1: number | Date;
  k2: number | null;
}

interface SortPlan {
  shape: readonly ('string' | 'number')[];
  /** `k1`, `k2` (null when unused) and the id, in order. */
  keys: Prisma.Sql;
  order: Prisma.Sql;
  after(values: CursorValue[]): Prisma.Sql;
  cursorOf(row: KeyRow): CursorValue[];
}

// A fork counts double: it is a stronger commitment than a subscription (the user builds on a copy).
const POPULARITY = Prisma.sql`(w.subscribers_count + 2 * w.forks_count)`;
// (C·m + sum) / (C + count) in millionths, with C = 10 and m = 3.5 (RATING_PRIOR); integer division.
const RATING_KEY = Prisma.sql`(((35 + w.rating_sum)::bigint * 1000000 / (10 + w.rating_count))::int)`;
const PUBLISHED = Prisma.sql`coalesce(w.published_at, w.created_at)`;

const SORTS: Record<MarketplaceSort, SortPlan> = {
  popular: {
    shape: ['number', 'string'],
    keys: Prisma.sql`${POPULARITY} AS k1, NULL::int AS k2`,
    order: Prisma.sql`${POPULARITY} DESC, w.id DESC`,
    after: ([k1, id]) => Prisma.sql`(${POPULARITY}, w.id) < (${k1}::int, ${id}::text)`,
    cursorOf: (r) => [r.k1 as number, r.id],
  },
  recent: {
    shape: ['string', 'string'],
    keys: Prisma.sql`${PUBLISHED} AS k1, NULL::int AS k2`,
    order: Prisma.sql`${PUBLISHED} DESC, w.id DESC`,
    after: ([at, id]) => Prisma.sql`(${PUBLISHED}, w.id) < (${cursorTime(at!)}::timestamptz, ${id}::text)`,
    cursorOf: (r) => [(r.k1 as Date).toISOString(), r.id],
  },
  rating: {
    shape: ['number', 'number', 'string'],
    keys: Prisma.sql`${RATING_KEY} AS k1, w.rating_count AS k2`,
    order: Prisma.sql`${RATING_KEY} DESC, w.rating_count DESC, w.id DESC`,
    after: ([k1, k2, id]) => Prisma.sql`(${RATING_KEY}, w.rating_count, w.id) < (${k1}::int, ${k2}::int, ${id}::text)`,
    cursorOf: (r) => [r.k1 as number, r.k2 as number, r.id],
  },
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

/** Blank means every category; the match ignores case. */
function categoryFilter(category: string | null | undefined): Prisma.Sql {
  const wanted = (category ?? '').trim();
  if (!wanted) return Prisma.empty;
  // eslint-disable-next-line no-control-regex -- NUL and other control characters are what is refused
  if (wanted.length > WORKFLOW_LIMITS.category || /[\u0000-\u001f]/.test(wanted)) {
    const message = `category must be at most ${WORKFLOW_LIMITS.category} characters, without control characters`;
    throw new AppError('VALIDATION_ERROR', message, { fields: [{ field: 'category', message }] });
  }
  return Prisma.sql`AND lower(w.category) = lower(${wanted})`;
}

export function createMarketplaceService({ db, clock }: ServiceDeps) {
  const prisma = db.prisma;

  function pageOf<R extends ItemRow>(rows: R[], limit: number, kind: string, cursorOf: (row: R) => CursorValue[]): Page<MarketplaceItem> {
    return toPage(rows, limit, kind, cursorOf, toItem);
  }

  async function browse(input: BrowseInput): Promise<Page<MarketplaceItem>> {
    const sort = input.sort ?? 'popular';
    const plan = SORTS[sort];
    const limit = pageLimit(input.limit);
    const kind = `marketplace:${sort}`;
    const after = input.cursor ? Prisma.sql`AND ${plan.after(readCursor(input.cursor, kind, plan.shape))}` : Prisma.empty;
    const rows = await prisma.$queryRaw<KeyRow[]>`
      SELECT ${ITEM_COLUMNS}, ${plan.keys}
      FROM workflows w JOIN users u ON u.id = w.owner_id
      WHERE w.visibility = 'public' ${categoryFilter(input.category)} ${after}
      ORDER BY ${plan.order}
      LIMIT ${limit + 1}`;
    return pageOf(rows, limit, kind, plan.cursorOf);
  }

  /**
   * Full-text search over the generated search document, best match first. Relevance is ts_rank
   * in millionths (an exact integer for the cursor); equal relevance falls back to popularity,
   * then the id. The document is a generated column, so a workflow made public, private or
   * deleted is found or gone by the very next search.
   */
  async function search(input: SearchInput): Promise<Page<MarketplaceItem>> {
    const terms = parseSearchText(input.q);
    const limit = pageLimit(input.limit);
    const kind = `search:${terms.digest}`;
    let after = Prisma.empty;
    if (input.cursor) {
      const [score, popularity, id] = readCursor(input.cursor, kind, ['number', 'number', 'string']);
      after = Prisma.sql`WHERE (s.score, s.popularity, s.id) < (${score}::int, ${popularity}::int, ${id}::text)`;
    }
    // Rank every match by id and keys only; the item columns are read for the page's rows alone.
    const rows = await prisma.$queryRaw<(ItemRow & { score: number; popularity: number })[]>`
      SELECT ${ITEM_COLUMNS}, page.score, page.popularity
      FROM (
        SELECT s.id, s.score, s.popularity FROM (
          SELECT w.id,
                 round(ts_rank(w.search_document, q.query)::float8 * 1000000)::int AS score,
                 ${POPULARITY} AS popularity
          FROM workflows w CROSS JOIN to_tsquery('simple', ${terms.tsquery}) AS q(query)
          WHERE w.visibility = 'public' AND w.search_document @@ q.query ${categoryFilter(input.category)}
        ) s
        ${after}
        ORDER BY s.score DESC, s.popularity DESC, s.id DESC
        LIMIT ${limit + 1}
      ) page
      JOIN workflows w ON w.id = page.id JOIN users u ON u.id = w.owner_id
      ORDER BY page.score DESC, page.popularity DESC, page.id DESC`;
    return pageOf(rows, limit, kind, (r) => [r.score, r.popularity, r.id]);
  }

  /**
   * A short list: public workflows with at least 3 ratings averaging 4 or more, scored by their
   * Bayesian rating plus 0.25 × ln(1 + subscriptions added in the last 7 days), at most one per
   * owner. The same data at the same time gives the same list.
   */
  async function featured(): Promise<Page<MarketplaceItem>> {
    const since = new Date(clock.now().getTime() - FEATURED_RULE.growthDays * 86_400_000).toISOString();
    const rows = await prisma.$queryRaw<ItemRow[]>`
      WITH growth AS (
        SELECT e.workflow_id, count(*)::int AS recent
        FROM library_entries e
        WHERE e.source_type = 'subscribed' AND e.added_at >= ${since}::timestamptz
        GROUP BY e.workflow_id
      ), scored AS (
        SELECT w.id, w.owner_id, w.rating_count,
               (35 + w.rating_sum)::float8 / (10 + w.rating_count) + ${FEATURED_RULE.growthWeight}::float8 * ln(1 + coalesce(g.recent, 0)) AS score
        FROM workflows w LEFT JOIN growth g ON g.workflow_id = w.id
        WHERE w.visibility = 'public' AND w.rating_count >= ${FEATURED_RULE.minRatings}::int
          AND w.rating_sum >= ${FEATURED_RULE.minMean}::int * w.rating_count
      ), ranked AS (
        SELECT s.*, row_number() OVER (PARTITION BY s.owner_id ORDER BY s.score DESC, s.rating_count DESC, s.id DESC) AS nth
        FROM scored s
      )
      SELECT ${ITEM_COLUMNS}
      FROM ranked r JOIN workflows w ON w.id = r.id JOIN users u ON u.id = w.owner_id
      WHERE r.nth = 1
      ORDER BY r.score DESC, r.rating_count DESC, r.id DESC
      LIMIT ${FEATURED_RULE.size}::int`;
    return { data: rows.map(toItem), pagination: { nextCursor: null, hasMore: false, count: rows.length } };
  }

  return { browse, search, featured };
}

export type MarketplaceService = ReturnType<typeof createMarketplaceService>;
