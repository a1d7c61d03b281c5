import DataLoader from 'dataloader';
import type { BundledWorkflow } from '../deployments/bundle.js';
import type { DeploymentUsageSummary, UsageSubject } from '../deployments/types.js';
import type { Page } from '../pagination.js';
import type { Services } from '../services.js';
import type { Viewer } from '../auth/viewer.js';
import type { TeamRole, Workflow, WorkflowVersion } from '../workflows/service.js';
import type { LibraryUpdate, UpdateSubject } from '../library/service.js';

/**
 * Per-request batch loaders for lookups that are not Prisma relations (so plugin-prisma cannot
 * fold them into the parent query): each runs one query for all the ids a response needs.
 *
 * Every execution gets one, and most never use a loader: so it is an instance of a class (one
 * small object, its methods shared) and each loader is made on first use.
 */
export class Loaders {
  private readable: DataLoader<string, Workflow | null> | undefined;
  private versionPages: Map<number | null, DataLoader<string, Page<WorkflowVersion>>> | undefined;
  private bundles: DataLoader<string, BundledWorkflow[]> | undefined;
  private usage: DataLoader<UsageSubject, DeploymentUsageSummary, string> | undefined;
  private updates: DataLoader<UpdateSubject, LibraryUpdate | null, string> | undefined;
  private teamRoles: DataLoader<string, TeamRole | null> | undefined;

  constructor(
    private readonly services: Services,
    private readonly viewer: Viewer | null,
  ) {}

  /** The first page (of `limit` versions) of a workflow the caller may read, batched over the workflows of a list. */
  firstVersionPage(limit: number | null): DataLoader<string, Page<WorkflowVersion>> {
    this.versionPages ??= new Map();
    let loader = this.versionPages.get(limit);
    if (!loader) {
      loader = new DataLoader((ids) => this.services.workflows.firstVersionPages(ids, { limit }));
      this.versionPages.set(limit, loader);
    }
    return loader;
  }

  /** A workflow the viewer may read, or null (deleted, or now private). */
  get readableWorkflow(): DataLoader<string, Workflow | null> {
    this.readable ??= new DataLoader<string, Workflow | null>((ids) => this.services.workflows.readableByIds(this.viewer, ids));
    return this.readable;
  }

  /** The viewer's role in a team, or null when they are not in it, batched over the teams of a page. */
  get teamRole(): DataLoader<string, TeamRole | null> {
    this.teamRoles ??= new DataLoader<string, TeamRole | null>((ids) => this.services.workflows.viewerTeamRoles(this.viewer!, ids));
    return this.teamRoles;
  }

  /** The bundled workflows of one of the viewer's deployments, batched over the deployments of a page. */
  get deploymentBundle(): DataLoader<string, BundledWorkflow[]> {
    // Only the viewer's own deployments are ever read, so a viewer is there whenever this runs.
    this.bundles ??= new DataLoader<string, BundledWorkflow[]>((ids) => this.services.deployments.bundlesOf(ids));
    return this.bundles;
  }

  /** The usage summary of one of the viewer's deployments, batched over the deployments of a page. */
  get deploymentUsage(): DataLoader<UsageSubject, DeploymentUsageSummary, string> {
    this.usage ??= new DataLoader<UsageSubject, DeploymentUsageSummary, string>((rows) => this.services.deployments.usageSummaries(rows), {
      cacheKeyFn: (row) => row.id,
    });
    return this.usage;
  }

  /** The waiting update of one of the viewer's library entries, batched over the entries of a page. */
  get libraryUpdate(): DataLoader<UpdateSubject, LibraryUpdate | null, string> {
    this.updates ??= new DataLoader<UpdateSubject, LibraryUpdate | null, string>(
      (entries) => this.services.library.pendingUpdates(this.viewer!, entries),
      { cacheKeyFn: (e) => `${e.workflowId}@${e.workflowVersion}:${e.sourceType}:${e.autoUpdate}` },
    );
    return this.updates;
  }
}
