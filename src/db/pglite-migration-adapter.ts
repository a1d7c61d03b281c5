import { createRequire } from 'node:module';
import { PGlite } from '@electric-sql/pglite';

/**
 * A PGlite driver-adapter factory for the Prisma CLI's JavaScript schema engine.
 * The published adapter runs migration scripts through a prepared statement (which
 * PostgreSQL refuses for several commands) and does not await them; this wrapper sends
 * parameterless multi-statement SQL through PGlite's script execution instead. Used only
 * by prisma.config.ts for `migrate diff` against a throw-away shadow database.
 */
const require = createRequire(import.meta.url);
const { PrismaPGlite } = require('pglite-prisma-adapter') as typeof import('pglite-prisma-adapter');

type Adapter = Awaited<ReturnType<InstanceType<typeof PrismaPGlite>['connect']>>;
type Query = { sql: string; args: unknown[] };

function isScript(query: Query): boolean {
  return query.args.length === 0 && query.sql.trim().replace(/;\s*$/, '').includes(';');
}

function patch(adapter: Adapter, lite: PGlite): Adapter {
  const queryRaw = adapter.queryRaw.bind(adapter);
  const executeRaw = adapter.executeRaw.bind(adapter);
  return Object.assign(adapter, {
    async executeScript(script: string) {
      await lite.exec(script);
    },
    async queryRaw(query: Query) {
      if (isScript(query)) {
        await lite.exec(query.sql);
        return { columnNames: [], columnTypes: [], rows: [] };
      }
      return queryRaw(query as never);
    },
    async executeRaw(query: Query) {
      if (isScript(query)) {
        await lite.exec(query.sql);
        return 0;
      }
      return executeRaw(query as never);
    },
  });
}

export function pgliteMigrationAdapter() {
  const main = new PGlite();
  const factory = new PrismaPGlite(main);
  return Object.assign(factory, {
    async connect() {
      return patch(await new PrismaPGlite(main).connect(), main);
    },
    async connectToShadowDb() {
      const shadow = new PGlite();
      return patch(await new PrismaPGlite(shadow).connect(), shadow);
    },
  });
}
