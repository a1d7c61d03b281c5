-- CreateIndex
CREATE UNIQUE INDEX "workflows_owner_id_forked_from_workflow_id_key" ON "workflows"("owner_id", "forked_from_workflow_id");

