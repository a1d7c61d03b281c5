-- Several ways into one account: each user's identity moves from the users row to a sign-in
-- identity of its own (method oidc: every account so far was made by an ID token), so no account
-- is lost. Deleted accounts keep their records (digests of issuer and subject, unchanged).

-- CreateEnum
CREATE TYPE "SignInMethod" AS ENUM ('email', 'github', 'oidc');

-- CreateTable
CREATE TABLE "sign_in_identities" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "method" "SignInMethod" NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_sign_in_links" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "link_to" TEXT,
    "requester" TEXT NOT NULL,
    "return_to" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "email_sign_in_links_pkey" PRIMARY KEY ("id")
);

-- Every existing account keeps its way in.
INSERT INTO "sign_in_identities" ("id", "user_id", "method", "issuer", "subject", "email", "email_verified", "label", "created_at")
SELECT 'sid_' || "id", "id", 'oidc', "issuer", "subject", lower("email"), false, "email", "created_at" FROM "users";

-- DropIndex
DROP INDEX "users_issuer_subject_key";

-- AlterTable
ALTER TABLE "users" DROP COLUMN "issuer",
DROP COLUMN "subject";

-- CreateIndex
CREATE INDEX "sign_in_identities_user_id_idx" ON "sign_in_identities"("user_id");

-- CreateIndex
CREATE INDEX "sign_in_identities_email_idx" ON "sign_in_identities"("email");

-- CreateIndex
CREATE UNIQUE INDEX "sign_in_identities_issuer_subject_key" ON "sign_in_identities"("issuer", "subject");

-- CreateIndex
CREATE INDEX "email_sign_in_links_email_created_at_idx" ON "email_sign_in_links"("email", "created_at");

-- CreateIndex
CREATE INDEX "email_sign_in_links_requester_created_at_idx" ON "email_sign_in_links"("requester", "created_at");

-- CreateIndex
CREATE INDEX "email_sign_in_links_expires_at_idx" ON "email_sign_in_links"("expires_at");

-- AddForeignKey
ALTER TABLE "sign_in_identities" ADD CONSTRAINT "sign_in_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "sign_in_attempts" ADD COLUMN "link_to" TEXT,
ADD COLUMN "method" "SignInMethod" NOT NULL DEFAULT 'oidc';
