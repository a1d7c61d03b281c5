-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "location" TEXT;

