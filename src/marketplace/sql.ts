import { Prisma } from '@prisma/client';
import type { Visibility } from '../workflows/input.js';

/**
 * The SQL of the marketplace: one statement per list (a sort order, a search, the featured list),
 * each joining the owner's public columns. The key expressions match the partial indexes of the
 * marketplace_browse_indexes migration character for character; keep them in step.
 */

/** A row of every marketplace statement: a public workflow's summary and its owner's display name. */
export interface ItemRow {
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
  check_findings: unknown;
}

/** A row of a sorted page: the item and its sort keys (`k2` null when the order has one key). */
export interface KeyRow extends ItemRow {
  k1: number | Date;
  k2: number | null;
}

// A public workflow's summary columns, read from `w`.
const WORKFLOW_COLUMNS = Prisma.sql`
  w.id, w.owner_id, w.name, w.description, w.visibility::text AS visibility, w.category, w.tags, w.current_version,
  w.forks_count, w.subscribers_count, w.rating_sum, w.rating_count,
  coalesce(w.published_at, w.created_at) AS published_at, w.created_at, w.updated_at, w.check_findings`;

// The users table is read for the display name only: the e-mail address is never selected.
const ITEM_COLUMNS = Prisma.sql`${WORKFLOW_COLUMNS}, u.display_name AS owner_display_name`;

// A fork counts double: it is a stronger commitment than a subscription (the user builds on a copy).
const POPULARITY = Prisma.sql`(w.subscribers_count + 2 * w.forks_count)`;
// (C·m + sum) / (C + count) in millionths, with C = 10 and m = 3.5 (RATING_PRIOR); integer division.
const RATING_KEY = Prisma.sql`(((35 + w.rating_sum)::bigint * 1000000 / (10 + w.rating_count))::int)`;
const PUBLISHED = Prisma.sql`coalesce(w.published_at, w.created_at)`;

/**
 * Only workflows the operators have not unlisted or suspended (src/moderation/service.ts). A
 * condition beside the partial indexes' `visibility = 'public'`, not in them: it holds for nearly
 * every row, so the planner's estimates, and with them the plans, stay those of the indexes, and a
 * taken-down row is dropped by a check of the row the plan reads anyway.
 */
const LISTED = Prisma.sql`w.moderation_state = 'listed'`;

/** A cursor's key values then its id (a time as ISO text); all null for the first page. */
export type CursorKeys = readonly (string | number | null)[];

/** How a sorted page reads its keys, orders its rows and resumes after a cursor's keys and id. */
export interface BrowseOrder {
  keys: Prisma.Sql;
  order: Prisma.Sql;
  /** The rows after the cursor, or every row when its values are null. */
  after(values: CursorKeys): Prisma.Sql;
}

/** The sort orders of the marketplace, by name (MARKETPLACE_SORTS). */
export const BROWSE_ORDERS = {
  popular: {
    keys: Prisma.sql`${POPULARITY} AS k1, NULL::int AS k2`,
    order: Prisma.sql`${POPULARITY} DESC, w.id DESC`,
    after: ([k1, id]) => Prisma.sql`(${id}::text IS NULL OR (${POPULARITY}, w.id) < (${k1}::int, ${id}::text))`,
  },
  recent: {
    keys: Prisma.sql`${PUBLISHED} AS k1, NULL::int AS k2`,
    order: Prisma.sql`${PUBLISHED} DESC, w.id DESC`,
    after: ([at, id]) => Prisma.sql`(${id}::text IS NULL OR (${PUBLISHED}, w.id) < (${at}::timestamptz, ${id}::text))`,
  },
  rating: {
    keys: Prisma.sql`${RATING_KEY} AS k1, w.rating_count AS k2`,
    order: Prisma.sql`${RATING_KEY} DESC, w.rating_count DESC, w.id DESC`,
    after: ([k1, k2, id]) =>
      Prisma.sql`(${id}::text IS NULL OR (${RATING_KEY}, w.rating_count, w.id) < (${k1}::int, ${k2}::int, ${id}::text))`,
  },
} satisfies Record<string, BrowseOrder>;

/**
 * A page of public workflows in `order` (`count` rows), in `category` (ignoring case; null for
 * every category) and after the cursor's keys (null for the first page). The optional conditions
 * are parameters of one statement: each request's statement is planned with its values, so a null
 * one costs nothing and the sort's partial index is used either way.
 */
export const browsePage = (input: { order: BrowseOrder; category: string | null; after: CursorKeys | null; count: number }) => Prisma.sql`
  SELECT ${ITEM_COLUMNS}, ${input.order.keys}
  FROM workflows w JOIN users u ON u.id = w.owner_id
  WHERE w.visibility = 'public' AND ${LISTED} AND (${input.category}::text IS NULL OR lower(w.category) = lower(${input.category}::text))
    AND ${input.order.after(input.after ?? [null, null, null])}
  ORDER BY ${input.order.order}
  LIMIT ${input.count}`;

/**
 * The relevance tiers of search, best first: the whole query matches the name; it matches the name,
 * tags and category; it matches the whole document (name, tags, category, description, the
 * manifest's intent and step names). Each tier's document is a generated column with its own GIN
 * index (migration marketplace_search_tiers); a tier's rows are those of its document that no
 * better tier holds, so every match is in exactly one tier.
 */
export const SEARCH_TIERS = [
  { tier: 3, document: Prisma.sql`w.search_name`, better: null },
  { tier: 2, document: Prisma.sql`w.search_label`, better: Prisma.sql`w.search_name` },
  { tier: 1, document: Prisma.sql`w.search_document`, better: Prisma.sql`w.search_label` },
] as const;

export type SearchTier = (typeof SEARCH_TIERS)[number];

/**
 * The popularity from which a public workflow is in the hot band of search (docs/marketplace.md,
 * "Search"; docs/performance.md, "Scale"). Every tier's document has a second GIN index of the hot
 * band's rows only (migration marketplace_search_hot_band, whose predicates repeat this number and
 * POPULARITY character for character). A literal in the statement, never a parameter, so that
 * every plan of it can use the partial indexes.
 */
export const HOT_POPULARITY = 8;
const HOT = Prisma.raw(String(HOT_POPULARITY));

/**
 * A page of one tier's public matches of `tsquery`, most popular first, then the id: the order of
 * the popular sort. A common word walks the popular sort's index (its key is POPULARITY, character
 * for character) and stops after `count` rows; a rare one reads its matches from the tier's GIN
 * index and sorts them; the planner picks by the estimated matches. The owners are joined to the
 * page's rows only. With `hotBand` (a large catalogue), one statement in two parts, of which the
 * page is one:
 * - `hot`: the matches of the hot band (popularity HOT_POPULARITY or more), read from the tier's
 *   partial GIN index, or by walking the popular sort's index to the band's end. When they fill
 *   the page, they are the page: every hot row outranks every other row.
 * - otherwise, the tier's matches as above, read only then (a one-time filter on the hot part's
 *   count, so that part of the plan does not run at all).
 * For a word in one row of a hundred, a page at a million workflows then reads a few hundred rows
 * of the hot band, where either way through every match reads thousands; in a small catalogue the
 * second plan costs more than it saves. In a category, the query's words are those qualified by
 * the category (each document holds both, migration marketplace_search_in_category): they match
 * exactly that category's workflows, so GIN reads only the category's matches and the planner
 * estimates them from the document's statistics, as without a category. `after` resumes within
 * the tier; null starts it.
 */
export const searchTierPage = (input: {
  tier: SearchTier;
  tsquery: string;
  /** The query as its whole words and the words its prefix starts (prefixAsWords), or null. */
  expanded?: { whole: string; words: string } | null;
  /** Whether to read the hot band first (a large catalogue; src/marketplace/catalogue-size.ts). */
  hotBand: boolean;
  category: string | null;
  after: { popularity: number; id: string } | null;
  count: number;
}) => {
  const after = input.after ?? { popularity: null, id: null };
  const { tier } = input;
  const typed = input.expanded
    ? Prisma.sql`(to_tsquery('simple', ${input.expanded.whole}) && ${input.expanded.words}::tsquery)`
    : Prisma.sql`to_tsquery('simple', ${input.tsquery})`;
  const query = input.category === null ? typed : Prisma.sql`workflow_search_category_query(${typed}, ${input.category}::text)`;
  const matches = (band: Prisma.Sql) => Prisma.sql`
    SELECT ${WORKFLOW_COLUMNS}, ${POPULARITY} AS popularity
    FROM workflows w CROSS JOIN (SELECT ${query}) AS q(query)
    WHERE w.visibility = 'public' AND ${LISTED} AND ${tier.document} @@ q.query ${band}
      ${tier.better ? Prisma.sql`AND NOT (${tier.better} @@ q.query)` : Prisma.empty}
      AND (${after.id}::text IS NULL OR (${POPULARITY}, w.id) < (${after.popularity}::int, ${after.id}::text))
    ORDER BY ${POPULARITY} DESC, w.id DESC
    LIMIT ${input.count}`;
  const withOwners = (page: Prisma.Sql) => Prisma.sql`
  SELECT p.*, u.display_name AS owner_display_name, ${tier.tier}::int AS tier
  FROM ${page} p JOIN users u ON u.id = p.owner_id
  ORDER BY p.popularity DESC, p.id DESC`;
  if (!input.hotBand) return withOwners(Prisma.sql`(${matches(Prisma.empty)})`);
  return Prisma.sql`
  WITH hot AS MATERIALIZED (${matches(Prisma.sql`AND ${POPULARITY} >= ${HOT}`)}),
  page AS (
    SELECT * FROM hot WHERE (SELECT count(*) FROM hot) = ${input.count}
    UNION ALL
    (${matches(Prisma.sql`AND (SELECT count(*) FROM hot) < ${input.count}`)})
  )
  ${withOwners(Prisma.sql`page`)}`;
};

/**
 * The marketplace's words that `prefix` starts (table search_words, migration
 * marketplace_search_words), in order, up to one more than `max` so that the caller sees when there
 * are more. None when the 'simple' configuration would read the prefix as anything but itself: the
 * words must stand for exactly what `'prefix':*` matches.
 */
export const wordsStartingWith = (prefix: string, max: number) => {
  const asPrefix = `'${prefix}':*`;
  return Prisma.sql`
  SELECT word FROM search_words
  WHERE word LIKE ${`${prefix.replace(/[\\%_]/g, '\\$&')}%`} AND to_tsquery('simple', ${asPrefix})::text = ${asPrefix}
  ORDER BY word
  LIMIT ${max + 1}`;
};

/**
 * The featured list (FEATURED_RULE): public workflows with at least `minRatings` ratings averaging
 * `minMean` or more, scored by their Bayesian rating plus `growthWeight` × ln(1 + subscriptions
 * added since `since`), at most one per owner, `size` of them.
 */
export const featuredItems = (rule: {
  since: string;
  minRatings: number;
  minMean: number;
  growthWeight: number;
  size: number;
}) => Prisma.sql`
  WITH growth AS (
    SELECT e.workflow_id, count(*)::int AS recent
    FROM library_entries e
    WHERE e.source_type = 'subscribed' AND e.added_at >= ${rule.since}::timestamptz
    GROUP BY e.workflow_id
  ), scored AS (
    SELECT w.id, w.owner_id, w.rating_count,
           (35 + w.rating_sum)::float8 / (10 + w.rating_count) + ${rule.growthWeight}::float8 * ln(1 + coalesce(g.recent, 0)) AS score
    FROM workflows w LEFT JOIN growth g ON g.workflow_id = w.id
    WHERE w.visibility = 'public' AND ${LISTED} AND w.rating_count >= ${rule.minRatings}::int
      AND w.rating_sum >= ${rule.minMean}::int * w.rating_count
  ), ranked AS (
    SELECT s.*, row_number() OVER (PARTITION BY s.owner_id ORDER BY s.score DESC, s.rating_count DESC, s.id DESC) AS nth
    FROM scored s
  )
  SELECT ${ITEM_COLUMNS}
  FROM ranked r JOIN workflows w ON w.id = r.id JOIN users u ON u.id = w.owner_id
  WHERE r.nth = 1
  ORDER BY r.score DESC, r.rating_count DESC, r.id DESC
  LIMIT ${rule.size}::int`;
