-- AlterTable
ALTER TABLE "mcp_connections" ADD COLUMN     "client_name" TEXT;

