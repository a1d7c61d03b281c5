-- Browsing the marketplace (docs/decisions.md, "Marketplace and reviews"): one partial index per
-- sort order, on exactly the key expressions of src/marketplace/service.ts, so a page (the first or
-- one after a cursor) reads only its own rows instead of sorting every public workflow.
--
-- Hand-written: Prisma does not model expression or partial indexes, and its diff leaves them
-- alone (`node scripts/prisma.mjs check` still agrees with schema.prisma).
CREATE INDEX "workflows_marketplace_popular_idx" ON "workflows"
  (("subscribers_count" + 2 * "forks_count") DESC, "id" DESC) WHERE "visibility" = 'public';
CREATE INDEX "workflows_marketplace_recent_idx" ON "workflows"
  ((coalesce("published_at", "created_at")) DESC, "id" DESC) WHERE "visibility" = 'public';
CREATE INDEX "workflows_marketplace_rating_idx" ON "workflows"
  ((((35 + "rating_sum")::bigint * 1000000 / (10 + "rating_count"))::int) DESC, "rating_count" DESC, "id" DESC) WHERE "visibility" = 'public';
