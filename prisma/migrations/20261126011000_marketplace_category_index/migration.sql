-- A category of the marketplace (docs/performance.md, "Scale"): its public workflows in popularity
-- order, on the key expressions of src/marketplace/sql.ts. Browsing a category by popularity and
-- searching a common word in a category walk it and stop after a page; searching a rare word in a
-- category intersects its rows with the tier's GIN index (a BitmapAnd) before reading the table. It
-- also gives the planner statistics on lower(category), which it had none of.
--
-- Hand-written: Prisma does not model expression or partial indexes (see marketplace_browse_indexes).
CREATE INDEX "workflows_marketplace_category_popular_idx" ON "workflows"
  ((lower("category")), ("subscribers_count" + 2 * "forks_count") DESC, "id" DESC) WHERE "visibility" = 'public';
