-- A version holds everything an agent sees of a workflow (docs/marketplace.md, "Versions and pins"):
-- its name, description, category and tags beside the manifest, and the content digest of them all.
--
-- Versions recorded before held only the manifest; their name, description, category and tags are
-- taken from the workflow as it is now, which is what agents were shown for them. The digests are
-- not computed here: their canonical form (src/workflows/digest.ts) is JSON with sorted keys as
-- JavaScript writes it, which SQL does not reproduce byte for byte. The service fills every missing
-- digest when it starts, before it serves (idempotent: only rows whose digest is null).

-- AlterTable
ALTER TABLE "workflow_versions" ADD COLUMN     "category" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "digest" TEXT,
ADD COLUMN     "name" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "digest" TEXT;


UPDATE "workflow_versions" v
SET "name" = w."name", "description" = w."description", "category" = w."category", "tags" = w."tags"
FROM "workflows" w
WHERE v."workflow_id" = w."id";
