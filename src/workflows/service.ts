import { withContext, type ServiceDeps } from '../service-deps.js';
import { findReadable } from './access.js';
import { createWorkflow } from './create.js';
import { forkWorkflow, viewerFork } from './forks.js';
import { exportSource, exportWorkflowManifest, getWorkflow, listWorkflows, readableByIds } from './read.js';
import { checkWorkflow, deleteWorkflow, updateWorkflow } from './update.js';
import { viewerTeamRoles } from './team-access.js';
import { fillMissingDigests, firstVersionPages, getVersion, listVersions, listVersionsOf } from './versions.js';

/**
 * The workflow service: each operation is a function of the module named for its concern (access
 * checks, create, read, update, forks, versions), given the database and clock here.
 */

/** The rows this service answers with, as faces name them (a face does not import Prisma). */
export type { Workflow, WorkflowVersion } from '@prisma/client';
export { WITHOUT_MANIFEST, type WorkflowQuery } from './types.js';
export { canRead, mayRead, unavailableReason } from './access.js';
export { teamRolesFor } from './team-access.js';
export type { TeamRole } from '@prisma/client';
export { addLibraryEntry } from './create.js';

export function createWorkflowService({ db, clock }: ServiceDeps) {
  return withContext(
    { db, clock },
    {
      fillMissingDigests,
      findReadable,
      readableByIds,
      listWorkflows,
      getWorkflow,
      createWorkflow,
      updateWorkflow,
      deleteWorkflow,
      forkWorkflow,
      viewerFork,
      listVersions,
      listVersionsOf,
      firstVersionPages,
      getVersion,
      exportWorkflowManifest,
      exportSource,
      checkWorkflow,
      viewerTeamRoles,
    },
  );
}
