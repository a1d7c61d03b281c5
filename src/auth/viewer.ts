/**
 * Who a request is from, as authentication establishes it. Every face (GraphQL, REST, the tool
 * endpoint) hands a Viewer to the services, which import it from here, never from a face.
 */

/** Ways into an account (a user has one or more sign-in identities). */
type SignInMethod = 'email' | 'github' | 'oidc';

/** What a verified ID token, or a finished sign-in, says about its holder. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  /** The token's `iat` (seconds since the epoch); null or absent when it has none. */
  issuedAt?: number | null;
  /** How it was proved; absent: an ID token (`oidc`). */
  method?: SignInMethod;
  /** True when the issuer checked `email` belongs to the holder (then it may open an account of that address). */
  emailVerified?: boolean;
  /** A name to show for this way in (a GitHub login); absent: the address. */
  label?: string | null;
}

/** A personal API key a request was made with, and what it may open. */
export interface ApiKeyCredential {
  kind: 'api_key';
  keyId: string;
  /** `mcp`: tool endpoints only; `api`: REST, GraphQL and tool endpoints. */
  scope: 'mcp' | 'api';
  /** The deployments whose tool endpoints the key may open; empty: all of the user's. */
  deploymentIds: readonly string[];
}

/**
 * An OAuth access token from the service's authorization server: bound to one deployment's tool
 * endpoint (RFC 8707), refused everywhere else; or, for the command-line tool only, bound to the
 * API (REST and GraphQL, scope `api`; `deploymentId` null), refused on tool endpoints.
 */
interface OAuthTokenCredential {
  kind: 'oauth';
  clientId: string;
  grantId: string;
  deploymentId: string | null;
}

/** The authenticated person behind a request. */
export interface Viewer {
  userId: string;
  email: string | null;
  /** How the request proved it: absent for an ID token, which opens everything the user may. */
  credential?: ApiKeyCredential | OAuthTokenCredential;
}

/**
 * What a request uses its credential for: the API (REST, GraphQL), one deployment's tool endpoint,
 * or the user's install catalog (an API key of either scope: it lists what the key opens).
 */
export type CredentialUse =
  | { face: 'api' }
  /** `chargeLater`: the tool endpoint counts the request itself once it knows whose bucket pays (RequestScope.chargeCaller). */
  | { face: 'mcp'; deploymentId: string; chargeLater?: boolean }
  | { face: 'catalog' };
