-- The hot band of marketplace search (docs/marketplace.md, "Search"; docs/performance.md, "Scale").
--
-- A page of a search tier is the 20 most popular of the tier's matches. With GIN (the words) and
-- the popular sort's btree (the order), the database could either read every match and sort them,
-- or walk the popularity order and check each row; for words that match one row in a hundred to one
-- in ten thousand, both read thousands of rows at a million workflows. These partial indexes hold
-- the tier documents of the most popular public workflows only (popularity 8 or more: 2.7% of the
-- benchmark's million, 6% of its ten thousand), so a page reads the matches among them first: every
-- hot row outranks every other, so when they fill the page the rest is never read.
--
-- Hand-written: Prisma does not model partial indexes or statistics objects, and its diff leaves
-- them alone. The predicate repeats the popular sort's key and HOT_POPULARITY (src/marketplace/sql.ts)
-- character for character, so the planner proves that a statement's band implies it.
CREATE INDEX "workflows_search_name_hot_idx" ON "workflows" USING GIN ("search_name")
  WHERE "visibility" = 'public' AND ("subscribers_count" + 2 * "forks_count") >= 8;
CREATE INDEX "workflows_search_label_hot_idx" ON "workflows" USING GIN ("search_label")
  WHERE "visibility" = 'public' AND ("subscribers_count" + 2 * "forks_count") >= 8;
CREATE INDEX "workflows_search_document_hot_idx" ON "workflows" USING GIN ("search_document")
  WHERE "visibility" = 'public' AND ("subscribers_count" + 2 * "forks_count") >= 8;

-- What share of the rows the band holds. The popular sort's index is partial, so ANALYZE keeps no
-- statistics of its key; without these the planner takes any range of popularity for a third of
-- the table, and walks the popularity order where the hot band's index reads a few hundred rows.
CREATE STATISTICS "workflows_popularity_stats" ON ("subscribers_count" + 2 * "forks_count") FROM "workflows";
ANALYZE "workflows";
