-- AlterTable
ALTER TABLE "oauth_records" ADD COLUMN     "replaces" TEXT;

-- CreateIndex
CREATE INDEX "oauth_records_replaces_idx" ON "oauth_records"("replaces");


-- Secrets at rest as hashes (like API keys and browser sessions): every record but grants and
-- clients is keyed by the SHA-256 (base64url) of its id, and its payload no longer holds the id.
UPDATE "oauth_records"
SET "id" = "kind" || ':' || translate(rtrim(encode(sha256(convert_to(substr("id", length("kind") + 2), 'UTF8')), 'base64'), '='), '+/', '-_'),
    "payload" = "payload" - 'jti'
WHERE "kind" NOT IN ('Grant', 'Client');
