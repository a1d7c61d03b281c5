import type { ServiceDeps } from './service-deps.js';
import { createUserService } from './users/service.js';
import { createSignInIdentities } from './users/identities.js';
import { createWorkflowService } from './workflows/service.js';
import { createLibraryService } from './library/service.js';
import { createDeploymentService } from './deployments/service.js';
import { createBillingService } from './billing/service.js';
import { createMarketplaceService } from './marketplace/service.js';
import { createReviewService } from './reviews/service.js';
import { createApiKeyService } from './api-keys/service.js';
import { createConnectedAppService } from './connected-apps/service.js';
import { createInstallService } from './install/service.js';
import { createQuotaService } from './limits/quota.js';
import { createIdempotencyService } from './idempotency/service.js';
import { createModerationService } from './moderation/service.js';
import { createTeamService } from './teams/service.js';

/**
 * Every service, built over the database, config and clock. Faces get this object and nothing of
 * what it is built from: only services reach the database.
 */
export function createServices(deps: ServiceDeps) {
  const billing = createBillingService(deps);
  const deployments = createDeploymentService(deps);
  const apiKeys = createApiKeyService(deps);
  const teams = createTeamService(deps, { setSeats: billing.setSeats });
  const users = createUserService(deps, {
    // Teams first: a refusal (the only owner of a team with others) leaves the subscription alone.
    beforeDelete: async (userId) => {
      await teams.prepareAccountDeletion(userId);
      await billing.cancelForDeletion(userId);
    },
    afterDelete: billing.forgetPlan,
  });
  return {
    billing,
    users,
    signInIdentities: createSignInIdentities(deps, { forgetIdentity: users.forgetIdentity }),
    workflows: createWorkflowService(deps),
    library: createLibraryService(deps),
    deployments,
    marketplace: createMarketplaceService(deps),
    reviews: createReviewService(deps),
    apiKeys,
    connectedApps: createConnectedAppService(deps),
    install: createInstallService(deps, { deployments, apiKeys }),
    quotas: createQuotaService(deps),
    idempotency: createIdempotencyService(deps),
    moderation: createModerationService(deps),
    teams,
  };
}

export type Services = ReturnType<typeof createServices>;
