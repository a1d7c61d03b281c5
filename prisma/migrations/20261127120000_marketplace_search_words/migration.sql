-- The words of the marketplace, so that a search's last word (a prefix) can be read as the words
-- it starts (docs/marketplace.md, "Search"; docs/performance.md, "Scale").
--
-- GIN answers a prefix by first building the union of the posting lists of every word it starts:
-- `review:*` is about 130,000 rows of the label tier at a million workflows, built in full even when
-- another word of the query matches a few hundred. Asked for the same words by name
-- (`'mutation' & ('review' | 'reviews' | …)`), GIN walks the rare word's list and skips through the
-- others. The service reads the words a prefix starts from this table before the search.
--
-- The table holds every lexeme of a public workflow's search document, never the category-qualified
-- ones (they start with `=`, which no typed word can). Words are never removed: one that no workflow
-- holds any more only widens a search by a word that matches nothing. It is kept by statement-level
-- triggers, so a bulk insert adds its words in one statement; an update adds words only for rows
-- whose document or visibility changed (a subscription changes neither).
--
-- Hand-written: Prisma does not model triggers. The table is in schema.prisma (SearchWord).
CREATE TABLE "search_words" (
    "word" TEXT COLLATE "C" NOT NULL,

    CONSTRAINT "search_words_pkey" PRIMARY KEY ("word")
);

CREATE FUNCTION "search_words_of_inserted"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "search_words" ("word")
  SELECT DISTINCT l.word
  FROM "inserted" w, unnest(tsvector_to_array(w."search_document")) AS l(word)
  WHERE w."visibility" = 'public' AND left(l.word, 1) <> '='
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE FUNCTION "search_words_of_updated"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "search_words" ("word")
  SELECT DISTINCT l.word
  FROM "updated" w JOIN "previous" p ON p."id" = w."id",
       unnest(tsvector_to_array(w."search_document")) AS l(word)
  WHERE w."visibility" = 'public' AND left(l.word, 1) <> '='
    AND (p."visibility" <> 'public' OR p."search_document" IS DISTINCT FROM w."search_document")
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "workflows_search_words_insert" AFTER INSERT ON "workflows"
  REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "search_words_of_inserted"();

CREATE TRIGGER "workflows_search_words_update" AFTER UPDATE ON "workflows"
  REFERENCING OLD TABLE AS "previous" NEW TABLE AS "updated"
  FOR EACH STATEMENT EXECUTE FUNCTION "search_words_of_updated"();

INSERT INTO "search_words" ("word")
SELECT DISTINCT l.word
FROM "workflows" w, unnest(tsvector_to_array(w."search_document")) AS l(word)
WHERE w."visibility" = 'public' AND left(l.word, 1) <> '=';
