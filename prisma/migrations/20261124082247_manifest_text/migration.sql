-- AlterTable
ALTER TABLE "workflow_versions" ADD COLUMN     "manifest_text" TEXT;

-- AlterTable
ALTER TABLE "workflows" ADD COLUMN     "manifest_text" TEXT;

