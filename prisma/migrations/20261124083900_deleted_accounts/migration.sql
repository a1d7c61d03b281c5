-- CreateTable
CREATE TABLE "deleted_accounts" (
    "identity_hash" TEXT NOT NULL,
    "deleted_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "deleted_accounts_pkey" PRIMARY KEY ("identity_hash")
);

