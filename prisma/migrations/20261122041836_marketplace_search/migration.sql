-- Marketplace full-text search (docs/decisions.md, "Marketplace and reviews").
--
-- Hand-written: Prisma models the column as Unsupported("tsvector") and its diff ignores
-- generation expressions, so `prisma migrate diff` only knows "a tsvector column and a GIN index".
--
-- The 'simple' configuration (lower-casing, no stemming, no stop words) is used for the document
-- and for every query built from it: prefix matching of partly typed words then behaves the same
-- for any language, and stemming cannot make a typed prefix miss its word.
--
-- A generated column needs an IMMUTABLE expression; array_to_string and a subquery over the
-- manifest's steps are not allowed there directly, so the document is built by this function.
CREATE FUNCTION "workflow_search_document"("name" TEXT, "tags" TEXT[], "category" TEXT, "description" TEXT, "manifest" JSONB)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT setweight(to_tsvector('simple'::regconfig, coalesce("name", '')), 'A')
      || setweight(to_tsvector('simple'::regconfig, coalesce(array_to_string("tags", ' '), '') || ' ' || coalesce("category", '')), 'B')
      || setweight(to_tsvector('simple'::regconfig, coalesce("description", '')), 'C')
      || setweight(to_tsvector('simple'::regconfig,
           coalesce("manifest" ->> 'intent', '') || ' ' ||
           coalesce((
             SELECT string_agg(step ->> 'name', ' ')
             FROM jsonb_array_elements(CASE WHEN jsonb_typeof("manifest" -> 'steps') = 'array' THEN "manifest" -> 'steps' ELSE '[]'::jsonb END) AS step
           ), '')), 'D')
$$;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN "search_document" tsvector
  GENERATED ALWAYS AS ("workflow_search_document"("name", "tags", "category", "description", "manifest")) STORED;

-- CreateIndex
CREATE INDEX "workflows_search_document_idx" ON "workflows" USING GIN ("search_document");
