-- CreateTable
CREATE TABLE "oauth_records" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" TEXT,
    "uid" TEXT,
    "account_id" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_records_grant_id_idx" ON "oauth_records"("grant_id");

-- CreateIndex
CREATE INDEX "oauth_records_uid_idx" ON "oauth_records"("uid");

-- CreateIndex
CREATE INDEX "oauth_records_account_id_kind_idx" ON "oauth_records"("account_id", "kind");

-- CreateIndex
CREATE INDEX "oauth_records_expires_at_idx" ON "oauth_records"("expires_at");

-- AddForeignKey
ALTER TABLE "oauth_records" ADD CONSTRAINT "oauth_records_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

