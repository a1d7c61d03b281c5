-- CreateEnum
CREATE TYPE "ModerationState" AS ENUM ('listed', 'unlisted', 'suspended');

-- CreateEnum
CREATE TYPE "ModerationActionKind" AS ENUM ('unlist', 'suspend', 'reinstate', 'dismiss');

-- CreateEnum
CREATE TYPE "ReportStatus" AS ENUM ('open', 'closed');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "display_name_keys" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "moderated_at" TIMESTAMPTZ(3),
ADD COLUMN     "moderation_reason" TEXT,
ADD COLUMN     "moderation_state" "ModerationState" NOT NULL DEFAULT 'listed';

-- CreateTable
CREATE TABLE "workflow_reports" (
    "id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "reporter_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" "ReportStatus" NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ(3),
    "closed_by_action_id" TEXT,

    CONSTRAINT "workflow_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "moderation_actions" (
    "id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "workflow_name" TEXT NOT NULL,
    "operator_id" TEXT NOT NULL,
    "operator_email" TEXT NOT NULL,
    "action" "ModerationActionKind" NOT NULL,
    "reason" TEXT NOT NULL,
    "reports_closed" INTEGER NOT NULL DEFAULT 0,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "moderation_actions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "workflow_reports_status_created_at_id_idx" ON "workflow_reports"("status", "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "workflow_reports_workflow_id_status_idx" ON "workflow_reports"("workflow_id", "status");

-- CreateIndex
CREATE INDEX "workflow_reports_reporter_id_idx" ON "workflow_reports"("reporter_id");

-- CreateIndex
CREATE INDEX "moderation_actions_at_id_idx" ON "moderation_actions"("at" DESC, "id");

-- CreateIndex
CREATE INDEX "moderation_actions_workflow_id_at_idx" ON "moderation_actions"("workflow_id", "at" DESC);

-- CreateIndex
CREATE INDEX "users_display_name_keys_idx" ON "users" USING GIN ("display_name_keys");

-- AddForeignKey
ALTER TABLE "workflow_reports" ADD CONSTRAINT "workflow_reports_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workflow_reports" ADD CONSTRAINT "workflow_reports_reporter_id_fkey" FOREIGN KEY ("reporter_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: Prisma does not model partial indexes, and its diff leaves them alone.
-- One open report per user and workflow (docs/marketplace.md, "Reports and takedown"): a second
-- report while the first is open is a unique violation, answered as CONFLICT.
CREATE UNIQUE INDEX "workflow_reports_one_open_idx" ON "workflow_reports"("workflow_id", "reporter_id") WHERE "status" = 'open';

-- The display names written before names had keys (src/users/sql.ts, UNSETTLED_NAMES): the service
-- gives them keys at start, oldest account first, and the index is empty from then on.
CREATE INDEX "users_unsettled_names_idx" ON "users"("created_at", "id")
  WHERE "display_name" IS NOT NULL AND "display_name_keys" = '{}'::text[] AND "display_name" NOT LIKE '%@%';
