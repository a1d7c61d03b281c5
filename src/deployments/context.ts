import type { ServiceDeps } from '../service-deps.js';
import type { ManifestCache } from './bundle.js';
import type { createUsageStore } from './usage.js';

/** What the deployment operations are built from: the service's deps, the manifest cache and the usage store. */
export interface DeploymentContext extends ServiceDeps {
  /** Manifests the tool endpoint has read, by workflow and version (immutable, so never stale). */
  manifests: ManifestCache;
  usage: ReturnType<typeof createUsageStore>;
}
