-- Search within a category reads its matches from one index (docs/performance.md, "Scale").
--
-- A search with `category=` used to intersect two indexes: the tier's GIN index and the category's
-- popularity index. With a million workflows, a tier holding no match in the category made the
-- planner walk the whole category (it multiplies the two selectivities as if independent), and the
-- other plan unions the posting lists of every word that starts with the typed prefix across the
-- whole catalogue: both linear in the catalogue. Each tier's document now also holds every one of
-- its words qualified by the workflow's category, so a search in a category asks for the qualified
-- words and GIN reads only that category's posting lists. A word typed by a user is letters and
-- digits only, so no unqualified query can match a qualified lexeme, and the qualified query needs
-- no category filter beside it: the planner then estimates its matches from the column's statistics
-- alone, as for a search without category (with the filter, it multiplied the two as if
-- independent, and read a large category's matches through a bitmap where walking the popularity
-- index would have stopped after a page).
--
-- Hand-written for the same reasons as marketplace_search (GENERATED columns built by IMMUTABLE
-- functions). A generated column's expression cannot be altered in place before PostgreSQL 17, so
-- the three columns and their indexes are built again.

-- The prefix that qualifies a word by a category: `=<length>=<category>=`, the category lower-cased
-- (as the category filter of browsing compares it). The length makes it unambiguous whatever the
-- category holds (`=` included), so a qualified word matches exactly the workflows of that category.
CREATE FUNCTION "workflow_search_category_prefix"("category" TEXT)
RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT '=' || char_length(k.c) || '=' || k.c || '=' FROM (SELECT lower(coalesce("category", '')) AS c) AS k
$$;

-- The document's words, and each of them qualified by the category. A qualified word longer than a
-- lexeme may be (2,046 bytes) is left out; categories are at most 50 characters, so only a word of
-- nearly 2,000 bytes is, and it is still found by a search without category.
CREATE FUNCTION "workflow_search_in_category"("document" tsvector, "category" TEXT)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT "document" || array_to_tsvector(ARRAY(
    SELECT k.prefix || d.lexeme
    FROM unnest("document") AS d(lexeme, positions, weights),
         (SELECT "workflow_search_category_prefix"("category") AS prefix) AS k
    WHERE octet_length(k.prefix) + octet_length(d.lexeme) <= 2046
  ))
$$;

-- A search query with every lexeme qualified by the category. The query's text form quotes each
-- lexeme, and the service's lexemes hold letters and digits only, so the text splits on quotes into
-- operators and lexemes; the prefix is escaped as a tsquery literal. Qualified words carry no
-- positions, so a phrase operator (the parser splitting a word in two) becomes AND.
CREATE FUNCTION "workflow_search_category_query"("query" tsquery, "category" TEXT)
RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(string_agg(
    CASE
      WHEN p.n % 2 = 0 THEN replace(replace("workflow_search_category_prefix"("category"), '\', '\\'), '''', '''''') || p.part
      ELSE regexp_replace(p.part, '<(-|[0-9]+)>', '&', 'g')
    END,
    '''' ORDER BY p.n), '')::tsquery
  FROM unnest(string_to_array("query"::text, '''')) WITH ORDINALITY AS p(part, n)
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
