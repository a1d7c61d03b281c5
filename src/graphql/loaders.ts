import type { Workflow, WorkflowVersion } from '@prisma/client';
import DataLoader from 'dataloader';
import type { Page } from '../pagination.js';
import type { Services } from '../services.js';
import { canRead } from '../workflows/service.js';
import type { Viewer } from '../auth/viewer.js';

/**
 * Per-request batch loaders for lookups that are not Prisma relations (so plugin-prisma cannot
 * fold them into the parent query): each runs one query for all the ids a response needs.
 */
export function createLoaders(services: Services, viewer: Viewer | null) {
  // Made on first use: most requests never need one.
  let readable: DataLoader<string, Workflow | null> | undefined;
  const versionPages = new Map<number | null, DataLoader<string, Page<WorkflowVersion>>>();
  return {
    /** The first page (of `limit` versions) of a workflow the caller may read, batched over the workflows of a list. */
    firstVersionPage(limit: number | null): DataLoader<string, Page<WorkflowVersion>> {
      let loader = versionPages.get(limit);
      if (!loader) {
        loader = new DataLoader((ids) => services.workflows.firstVersionPages(ids, { limit }));
        versionPages.set(limit, loader);
      }
      return loader;
    },
    /** A workflow the viewer may read, or null (deleted, or now private). */
    get readableWorkflow(): DataLoader<string, Workflow | null> {
      readable ??= new DataLoader<string, Workflow | null>(async (ids) => {
        const rows = await services.db.prisma.workflow.findMany({ where: { id: { in: [...ids] } } });
        const byId = new Map(rows.map((w) => [w.id, w]));
        return ids.map((id) => {
          const w = byId.get(id);
          return w && viewer && canRead(viewer, w) ? w : null;
        });
      });
      return readable;
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
