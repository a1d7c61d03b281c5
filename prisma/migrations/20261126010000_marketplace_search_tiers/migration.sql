-- Marketplace search in relevance tiers (docs/marketplace.md, "Search"; docs/performance.md, "Scale").
--
-- A search page used to rank every match with ts_rank and sort them: its cost grew with the number
-- of matches, so with the catalogue. Relevance is now three tiers — the whole query matches the
-- name; it matches the name, tags and category; it matches the whole document — and popularity
-- orders each tier. Each tier has its own document and GIN index, so the planner sees how many rows
-- a tier matches: a common word walks the popularity index and stops after a page; a rare one
-- reads its few matches from the tier's index and sorts them.
--
-- Hand-written for the same reasons as marketplace_search: the documents are GENERATED columns, built
-- by IMMUTABLE functions in the 'simple' configuration (array_to_string is not allowed directly).
CREATE FUNCTION "workflow_search_name"("name" TEXT)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT to_tsvector('simple'::regconfig, coalesce("name", ''))
$$;

CREATE FUNCTION "workflow_search_label"("name" TEXT, "tags" TEXT[], "category" TEXT)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT to_tsvector('simple'::regconfig,
    coalesce("name", '') || ' ' || coalesce(array_to_string("tags", ' '), '') || ' ' || coalesce("category", ''))
$$;

-- AlterTable
ALTER TABLE "workflows"
  ADD COLUMN "search_name" tsvector GENERATED ALWAYS AS ("workflow_search_name"("name")) STORED,
  ADD COLUMN "search_label" tsvector GENERATED ALWAYS AS ("workflow_search_label"("name", "tags", "category")) STORED;

-- CreateIndex
CREATE INDEX "workflows_search_name_idx" ON "workflows" USING GIN ("search_name");
CREATE INDEX "workflows_search_label_idx" ON "workflows" USING GIN ("search_label");
