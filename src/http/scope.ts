import type { CredentialUse, Viewer } from '../auth/viewer.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';

/** What one request carries through the faces: its id, its services and, once known, its viewer. */
export interface RequestScope {
  requestId: string;
  services: Services;
  log: Logger;
  /** A route label for logs and metrics, e.g. `GET /v1/workflows/:workflowId`. */
  route: string;
  userId: string | null;
  /**
   * Verifies the Authorization header (once) and resolves the viewer, or throws UNAUTHORIZED;
   * FORBIDDEN when the credential (an API key's scope or deployments) does not cover `use`
   * (default: the API, REST and GraphQL).
   */
  authenticate(use?: CredentialUse): Promise<Viewer>;
  /** Whether the request carries a credential: an Authorization header, or an API key in its address. */
  hasCredential(): boolean;
  /**
   * Counts `points` more requests against the authenticated caller's rate limit (a GraphQL
   * request that asks for several root fields); throws RATE_LIMITED (429) over it.
   */
  chargeMore(points: number): Promise<void>;
  /** Extra headers every response of this request carries (rate-limit headers). */
  headers: Record<string, string>;
  /** The client's address (X-Forwarded-For is trusted only through TRUST_PROXY_HOPS). */
  clientIp: string;
  /**
   * Counts an anonymous call to a deployment's endpoint against the limit of key
   * `anon:<deploymentId>:<clientIp>` at the owner's plan rate; throws RATE_LIMITED (429) over it.
   * Authenticated calls need nothing: `authenticate()` counts them per user.
   */
  limitAnonymous(deploymentId: string, ownerId: string): Promise<void>;
  /**
   * Counts a request authenticated with `chargeLater` (the tool endpoint): against the caller's
   * own limit, or for a member calling a team's deployment against the team's (key
   * `team:<teamId>`, at the plan rate of its billing owner); throws RATE_LIMITED (429) over it.
   */
  chargeCaller(team: { teamId: string; billingOwnerId: string } | null): Promise<void>;
}
