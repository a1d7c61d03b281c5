import { withContext, type ServiceDeps } from '../service-deps.js';
import { ManifestCache } from './bundle.js';
import { createDeployment } from './create.js';
import { admitConnection, loadDeploymentForEndpoint, renderableFor } from './endpoint-target.js';
import { bundlesOf, endpointOf, getDeployment, getUsage, listDeployments, usageSummaries } from './read.js';
import { activate, deactivate, deleteDeployment, setAdapter, updateDeployment } from './update.js';
import { createUsageStore } from './usage.js';

/**
 * Deployments (spec 2.4, 3, 4.2): every rule and permission check, each operation a function of
 * the module named for its concern (access checks, create, read, update, the tool endpoint's
 * target), given the deps, the manifest cache and the usage store here.
 */

export type { EndpointTarget } from './endpoint-target.js';

export function createDeploymentService(deps: ServiceDeps) {
  const context = { ...deps, manifests: new ManifestCache(), usage: createUsageStore(deps.db) };
  return withContext(context, {
    listDeployments,
    getDeployment,
    bundlesOf,
    usageSummaries,
    endpointOf,
    createDeployment,
    updateDeployment,
    setAdapter,
    activate,
    deactivate,
    deleteDeployment,
    getUsage,
    loadDeploymentForEndpoint,
    renderableFor,
    admitConnection,
  });
}
