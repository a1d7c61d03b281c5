import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

/**
 * Configuration of the Prisma CLI. The JavaScript schema engine runs migrations through a
 * driver adapter, so no native engine has to be downloaded: PostgreSQL when DATABASE_URL is
 * set, otherwise a throw-away in-memory PGlite (enough for `migrate diff`).
 */
export default defineConfig({
  experimental: { adapter: true },
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  engine: 'js',
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (url) {
      return new PrismaPg({ connectionString: url });
    }
    const { pgliteMigrationAdapter } = await import('./src/db/pglite-migration-adapter.js');
    // Typed against an older copy of Prisma's adapter interfaces; at run time they match.
    return pgliteMigrationAdapter() as unknown as PrismaPg;
  },
});
