/**
 * Who a request is from, as authentication establishes it. Every face (GraphQL, REST, the tool
 * endpoint) hands a Viewer to the services, which import it from here, never from a face.
 */

/** What a verified ID token says about its holder. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  /** The token's `iat` (seconds since the epoch); null or absent when it has none. */
  issuedAt?: number | null;
}

/** The authenticated person behind a request. */
export interface Viewer {
  userId: string;
  email: string | null;
  issuer: string;
  subject: string;
}
