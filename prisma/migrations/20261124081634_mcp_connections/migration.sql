-- CreateTable
CREATE TABLE "mcp_connections" (
    "deployment_id" TEXT NOT NULL,
    "adapter" TEXT NOT NULL,
    "caller" TEXT NOT NULL,
    "day" DATE NOT NULL,

    CONSTRAINT "mcp_connections_pkey" PRIMARY KEY ("deployment_id","adapter","caller","day")
);

-- AddForeignKey
ALTER TABLE "mcp_connections" ADD CONSTRAINT "mcp_connections_deployment_id_fkey" FOREIGN KEY ("deployment_id") REFERENCES "deployments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

