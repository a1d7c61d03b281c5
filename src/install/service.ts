/**
 * The rules of installing a deployment: who may see its install data, the key made for it, and who
 * may read its catalogs (plugin marketplace, skills index) and its key-bound endpoint. The forms
 * themselves come from the pure modules (the client definitions in clients/, and catalogs.ts).
 */
import type { Viewer } from '../auth/viewer.js';
import type { ApiKeyView, createApiKeyService } from '../api-keys/service.js';
import type { createDeploymentService, EndpointTarget } from '../deployments/service.js';
import { AppError } from '../errors.js';
import { ADAPTERS, DEFAULT_ADAPTER, type Adapter } from '../manifest/adapter-list.js';
import type { Deployment } from '@prisma/client';
import type { EndpointWorkflow } from '../deployments/types.js';
import type { ServiceDeps } from '../service-deps.js';
import { NAME_MAX } from '../text.js';
import { contentKeyOf } from './artifacts.js';
import { deploymentInstallOf, type DeploymentInstall, type InstallTarget } from './clients/index.js';
import type { BundledWorkflow } from '../deployments/bundle.js';
import { provenanceOf, type Provenance } from '../workflows/provenance.js';

/** A workflow an install brings, at the version its agent is served, with who wrote it and its content digest. */
export interface InstalledWorkflow extends Provenance {
  workflowId: string;
  name: string;
  version: string;
}

/**
 * The workflows of a deployment's bundle that its install brings (those its owner may use now), each
 * with its provenance: what a user compares with what their agent is shown.
 */
export function installedWorkflowsOf(bundle: readonly BundledWorkflow[]): InstalledWorkflow[] {
  return bundle
    .filter((w) => w.available)
    .map((w) => {
      // The bundle's statement reads the digest the service wrote with the version (filled at start for older rows).
      if (w.versionDigest === null) throw new Error(`workflow ${w.id} version ${w.version} has no content digest`);
      const provenance = provenanceOf({ id: w.ownerId, displayName: w.authorDisplayName }, w.versionDigest, !w.isOwned);
      return { workflowId: w.id, name: w.name, version: w.version, ...provenance };
    });
}

/** What the install service uses of the other services (the same objects every face calls). */
interface InstallPeers {
  deployments: Pick<
    ReturnType<typeof createDeploymentService>,
    'getDeployment' | 'listDeployments' | 'loadDeploymentForEndpoint' | 'renderableFor'
  >;
  apiKeys: Pick<ReturnType<typeof createApiKeyService>, 'createApiKey' | 'authenticateApiKey'>;
}

export interface InstallKeyResult {
  apiKey: ApiKeyView & { secret: string };
  install: DeploymentInstall;
}

/** A deployment a catalog lists: its install target (with the key of the address, if any) and its workflows. */
export interface CatalogEntry {
  target: InstallTarget;
  /**
   * Names what the entry's artefacts are built of (src/install/artifacts.ts): the deployment's
   * fields, the base URL, the adapter and each bundled workflow's id, author, version, update time,
   * name and adapters. Never the key of the address.
   */
  contentKey: string;
  /** The adapter its skills are rendered for. */
  adapter: Adapter | null;
  workflows: () => Promise<EndpointWorkflow[]>;
}

/** Skills read as instructions: the adapter written for a reading agent, else the first one the deployment enables. */
const SKILL_ADAPTERS: Adapter[] = [DEFAULT_ADAPTER, ...ADAPTERS.filter((a) => a !== DEFAULT_ADAPTER)];

function refusedKey(): AppError {
  // 403, not 401: a 401 would send an MCP client looking for OAuth, which the key-bound addresses never offer.
  return new AppError(
    'FORBIDDEN',
    "the API key in this address is not valid (revoked, expired or mistyped): make a new one on the deployment's install page",
    { reason: 'install_key_refused' },
  );
}

/** A deployment's install target: its public data, its tool endpoint under the base URL, and the key given, if any. */
function targetOf(
  baseUrl: string,
  d: { deploymentId: string; name: string; description: string | null; allowAnonymous: boolean },
  apiKey?: string | null,
): InstallTarget {
  return {
    deploymentId: d.deploymentId,
    name: d.name,
    description: d.description,
    allowAnonymous: d.allowAnonymous,
    endpoint: `${baseUrl}/mcp/${encodeURIComponent(d.deploymentId)}`,
    baseUrl,
    apiKey: apiKey ?? null,
  };
}

/** A catalog's entry for a deployment the endpoint would serve: its target, what its artefacts are built of, its skills' adapter. */
function catalogEntryOf(baseUrl: string, peers: InstallPeers, d: EndpointTarget, apiKey: string | null): CatalogEntry {
  const adapter = SKILL_ADAPTERS.find((a) => d.enabledAdapters.includes(a)) ?? null;
  const content = contentKeyOf([
    baseUrl,
    d.deploymentId,
    d.name,
    d.description,
    d.allowAnonymous,
    adapter,
    d.bundle.map((w) => [
      w.id,
      w.ownerId,
      w.name,
      w.description,
      w.visibility,
      w.version,
      w.manifestKey,
      w.available,
      w.isActive,
      w.adapters,
    ]),
  ]);
  return {
    target: targetOf(baseUrl, d, apiKey),
    contentKey: content,
    adapter,
    workflows: async () => (adapter ? peers.deployments.renderableFor(d, adapter) : []),
  };
}

/**
 * The deployment behind a catalog address. Without a key only an anonymous deployment has one (a
 * private or unknown one answers NOT_FOUND alike); with a key, the key's owner's deployment that
 * the key covers. Inactive deployments are refused as the endpoint refuses them.
 */
async function catalogOf(
  baseUrl: string,
  peers: InstallPeers,
  deploymentId: string,
  apiKey: string | null,
  viewer: Viewer | null,
): Promise<CatalogEntry> {
  if (apiKey === null) {
    try {
      return catalogEntryOf(baseUrl, peers, await peers.deployments.loadDeploymentForEndpoint(deploymentId, null), null);
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
        // The id is a segment of an address that may hold a key by mistake: it is not repeated.
        throw new AppError(
          'NOT_FOUND',
          "this deployment has no public catalog: a private deployment's catalogs are at the address with its key, on its install page",
          {},
        );
      }
      throw error;
    }
  }
  try {
    return catalogEntryOf(baseUrl, peers, await peers.deployments.loadDeploymentForEndpoint(deploymentId, viewer), apiKey);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND')
      throw new AppError(
        'NOT_FOUND',
        "the key of this address opens no such deployment: copy the address from the deployment's install page",
        {},
      );
    throw error;
  }
}

export function createInstallService(deps: ServiceDeps, peers: InstallPeers) {
  const baseUrl = deps.config.publicBaseUrl;

  /** The install data of one of the viewer's deployments (another user's: NOT_FOUND). */
  async function getInstall(viewer: Viewer, deploymentId: string): Promise<DeploymentInstall> {
    return installOf(await peers.deployments.getDeployment(viewer, deploymentId));
  }

  function installOf(deployment: Deployment): DeploymentInstall {
    return deploymentInstallOf(targetOf(baseUrl, { ...deployment, deploymentId: deployment.id }));
  }

  /**
   * Makes a key for one deployment (scope `mcp`, limited to it) and returns the install data with the
   * key in every form: the only answer that carries the secret. The key is named for where it was
   * made: `madeBy` (the dashboard's "IDE setup", `wfctl on <hostname>`; default "Install page") and
   * the deployment, with ` (2)`, ` (3)`… when one of the user's keys has that name already.
   */
  async function createInstallKey(viewer: Viewer, deploymentId: string, madeBy?: string | null): Promise<InstallKeyResult> {
    const deployment = await peers.deployments.getDeployment(viewer, deploymentId);
    const origin = (madeBy ?? '').replace(/\s+/g, ' ').trim().slice(0, 60) || 'Install page';
    const name = Array.from(`${origin}: ${deployment.name}`).slice(0, NAME_MAX).join('').trimEnd();
    const apiKey = await peers.apiKeys.createApiKey(viewer, { name, scope: 'mcp', deploymentIds: [deployment.id] }, { uniqueName: true });
    return { apiKey, install: deploymentInstallOf(targetOf(baseUrl, { ...deployment, deploymentId: deployment.id }, apiKey.secret)) };
  }

  /** The viewer of a key written in an address, or a refusal that never sends a client to OAuth. */
  async function viewerOfAddressKey(apiKey: string): Promise<Viewer> {
    try {
      return await peers.apiKeys.authenticateApiKey(apiKey);
    } catch (error) {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') throw refusedKey();
      throw error;
    }
  }

  /** The active deployments of the key's owner that the key covers (one page of 100 at most), for the user's catalog. */
  async function userCatalogOf(viewer: Viewer, apiKey: string): Promise<CatalogEntry[]> {
    const credential = viewer.credential;
    const covered = credential?.kind === 'api_key' && credential.deploymentIds.length > 0 ? new Set(credential.deploymentIds) : null;
    const { data } = await peers.deployments.listDeployments(viewer, { status: 'active', limit: 100 });
    const entries: CatalogEntry[] = [];
    for (const d of data) {
      if (covered && !covered.has(d.id)) continue;
      entries.push(catalogEntryOf(baseUrl, peers, await peers.deployments.loadDeploymentForEndpoint(d.id, viewer), apiKey));
    }
    return entries;
  }

  return {
    getInstall,
    installOf,
    createInstallKey,
    viewerOfAddressKey,
    catalogOf: (deploymentId: string, apiKey: string | null, viewer: Viewer | null) =>
      catalogOf(baseUrl, peers, deploymentId, apiKey, viewer),
    userCatalogOf,
  };
}
