-- Search within a category reads its matches from one index (docs/performance.md, "Scale").
--
-- A search with `category=` used to intersect two indexes: the tier's GIN index and the category's
-- popularity index. With a million workflows, a tier holding no match in the category made the
-- planner walk the whole category (it multiplies the two selectivities as if independent), and the
-- other plan unions the posting lists of every word that starts with the typed prefix across the
-- whole catalogue: both linear in the catalogue. Each tier's document now also holds every one of
-- its words qualified by the workflow's category, `=<category>=<word>`, so a search in a category
-- asks for `'=documentation=review':*` and GIN reads only that category's posting lists. A word
-- typed by a user is letters and digits only, so no unqualified query can match a qualified
-- lexeme. The category filter stays in the statement as a recheck.
--
-- Hand-written for the same reasons as marketplace_search (GENERATED columns built by IMMUTABLE
-- functions). A generated column's expression cannot be altered in place before PostgreSQL 17, so
-- the three columns and their indexes are built again.

-- The document's words, and each of them qualified by the category. A qualified lexeme longer than
-- a lexeme may be (2,047 bytes) is left out; such a word is still found by a search without category.
CREATE FUNCTION "workflow_search_in_category"("document" tsvector, "category" TEXT)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT "document" || array_to_tsvector(ARRAY(
    SELECT '=' || lower(coalesce("category", '')) || '=' || d.lexeme
    FROM unnest("document") AS d(lexeme, positions, weights)
    WHERE octet_length(d.lexeme) + octet_length(lower(coalesce("category", ''))) + 2 <= 2046
  ))
$$;

-- A search query (AND-ed lexemes, as the service builds them) with every lexeme qualified by the
-- category. A query of any other shape is returned as it is: the statement's category filter then
-- still gives the right rows, the slower way.
CREATE FUNCTION "workflow_search_category_query"("query" tsquery, "category" TEXT)
RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN "query"::text ~ '^''[^'' ]+''(:\*)?( & ''[^'' ]+''(:\*)?)*$' THEN (
      SELECT string_agg('''' || replace(replace('=' || lower("category") || '=', '\', '\\'), '''', '''''') || substr(term, 2), ' & ')::tsquery
      FROM unnest(string_to_array("query"::text, ' & ')) AS term
    )
    ELSE "query"
  END
$$;

-- AlterTable
DROP INDEX "workflows_search_document_idx";
DROP INDEX "workflows_search_name_idx";
DROP INDEX "workflows_search_label_idx";
ALTER TABLE "workflows"
  DROP COLUMN "search_document",
  DROP COLUMN "search_name",
  DROP COLUMN "search_label";
ALTER TABLE "workflows"
  ADD COLUMN "search_document" tsvector GENERATED ALWAYS AS (
    "workflow_search_in_category"("workflow_search_document"("name", "tags", "category", "description", "manifest"), "category")) STORED,
  ADD COLUMN "search_name" tsvector GENERATED ALWAYS AS (
    "workflow_search_in_category"("workflow_search_name"("name"), "category")) STORED,
  ADD COLUMN "search_label" tsvector GENERATED ALWAYS AS (
    "workflow_search_in_category"("workflow_search_label"("name", "tags", "category"), "category")) STORED;

-- CreateIndex
CREATE INDEX "workflows_search_document_idx" ON "workflows" USING GIN ("search_document");
CREATE INDEX "workflows_search_name_idx" ON "workflows" USING GIN ("search_name");
CREATE INDEX "workflows_search_label_idx" ON "workflows" USING GIN ("search_label");
