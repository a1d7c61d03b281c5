-- CreateTable
CREATE TABLE "workflow_forks" (
    "workflow_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workflow_forks_pkey" PRIMARY KEY ("workflow_id","user_id")
);

-- CreateIndex
CREATE INDEX "workflow_forks_user_id_idx" ON "workflow_forks"("user_id");

-- AddForeignKey
ALTER TABLE "workflow_forks" ADD CONSTRAINT "workflow_forks_workflow_id_fkey" FOREIGN KEY ("workflow_id") REFERENCES "workflows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workflow_forks" ADD CONSTRAINT "workflow_forks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The forks that exist already are forks their owners made.
INSERT INTO "workflow_forks" ("workflow_id", "user_id", "created_at")
SELECT f."forked_from_workflow_id", f."owner_id", f."created_at"
FROM "workflows" f
JOIN "workflows" o ON o."id" = f."forked_from_workflow_id"
ON CONFLICT DO NOTHING;
