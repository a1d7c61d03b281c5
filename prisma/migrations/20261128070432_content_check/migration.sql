-- AlterTable
ALTER TABLE "workflow_versions" ADD COLUMN     "check_findings" JSONB;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "check_findings" JSONB;

