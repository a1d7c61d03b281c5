-- The YAML text of a manifest as the user sent it (comments and layout kept), when sent as YAML.
ALTER TABLE "workflows" ADD COLUMN "manifest_yaml" TEXT;
ALTER TABLE "workflow_versions" ADD COLUMN "manifest_yaml" TEXT;
