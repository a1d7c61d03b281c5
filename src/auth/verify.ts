import {
  createLocalJWKSet,
  createRemoteJWKSet,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';

import { AppError } from '../errors.js';
import { DEV_ALGORITHM, DEV_AUDIENCE, DEV_ISSUER, loadOrCreateDevIssuerKey } from './dev-issuer.js';
import { VerifiedTokenCache } from './token-cache.js';
import type { VerifiedIdentity } from './viewer.js';

export interface AuthConfig {
  issuer?: string;
  audience?: string;
  jwksUrl?: string;
  devAuth: boolean;
  dataDir: string;
  production: boolean;
  /**
   * True when browsers sign in without an OpenID provider (e-mail, GitHub): then, with no
   * OIDC_ISSUER and no development issuer, no ID token is accepted (API keys and OAuth tokens are).
   */
  ownSignIn?: boolean;
}

export type { VerifiedIdentity } from './viewer.js';

export interface Authenticator {
  verifyAuthorization(header: string | null | undefined): Promise<VerifiedIdentity>;
  close?(): void;
}

/** Asymmetric only: an HS* allowance would let anyone holding the public key forge tokens. */
const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'] as const;

const CLOCK_TOLERANCE_SECONDS = 60;
const CACHE_MAX_ENTRIES = 10_000;
const CACHE_MAX_AGE_MS = 60_000;
// Well above any real ID token, yet small enough that hashing and parsing an
// oversized header cannot be used to burn CPU.
const MAX_TOKEN_LENGTH = 16 * 1024;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const JOSE_ERROR_CODE = /^ERR_(JOSE|JWT|JWS|JWK|JWKS|JWE)_/;

type AuthFailureReason =
  'missing' | 'malformed' | 'expired' | 'not_yet_valid' | 'issuer' | 'audience' | 'signature' | 'algorithm' | 'claims';

export async function createAuthenticator(config: AuthConfig): Promise<Authenticator> {
  const source = await resolveKeySource(config);
  if (!source) {
    return {
      async verifyAuthorization(header) {
        parseAuthorizationHeader(header);
        throw noIdTokens();
      },
    };
  }
  const cache = new VerifiedTokenCache(CACHE_MAX_ENTRIES, CACHE_MAX_AGE_MS);
  const options: JWTVerifyOptions = {
    issuer: source.issuer,
    audience: source.audience,
    algorithms: [...source.algorithms],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp', 'sub'],
  };

  return {
    async verifyAuthorization(header) {
      const token = parseAuthorizationHeader(header);
      const key = VerifiedTokenCache.keyOf(token);
      const cached = cache.get(key, Date.now());
      if (cached) return cached;

      const payload = await verifyToken(token, source, options);
      const identity = Object.freeze(toIdentity(source.issuer, payload));
      // requiredClaims guarantees exp is present and jose checked it is a number.
      cache.set(key, identity, payload.exp as number, Date.now());
      return identity;
    },
    close() {
      cache.clear();
    },
  };
}

/** Extracts the token from `Bearer <token>`; throws UNAUTHORIZED otherwise. */
export function parseAuthorizationHeader(header: string | null | undefined): string {
  const value = header?.trim();
  if (!value) {
    throw new AppError(
      'UNAUTHORIZED',
      'missing Authorization header: send Authorization: Bearer <ID token>',
      {},
      { 'WWW-Authenticate': 'Bearer' },
    );
  }
  if (value.length > MAX_TOKEN_LENGTH + 'Bearer '.length) {
    throw invalidToken('malformed', 'malformed Authorization header: the token is too long');
  }
  const match = BEARER.exec(value);
  if (!match?.[1]) {
    throw invalidToken('malformed', 'malformed Authorization header: expected "Bearer <ID token>" with exactly one token');
  }
  return match[1];
}

/** No ID token is accepted: what a request presenting one hears. */
function noIdTokens(): AppError {
  return new AppError(
    'UNAUTHORIZED',
    'this service accepts no ID tokens: send an API key (wfk_…) or an access token of its authorization server, or sign in in the dashboard',
    { reason: 'issuer' },
    { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  );
}

interface KeySource {
  issuer: string;
  audience: string;
  algorithms: readonly string[];
  getKey: JWTVerifyGetKey;
}

async function resolveKeySource(config: AuthConfig): Promise<KeySource | null> {
  const { issuer, audience, jwksUrl } = config;
  if (issuer) {
    const missing = [audience ? null : 'OIDC_AUDIENCE', jwksUrl ? null : 'OIDC_JWKS_URL'].filter((v): v is string => v !== null);
    if (missing.length > 0 || !audience || !jwksUrl) {
      throw new Error(`OIDC_ISSUER is set, so ${listNames(missing)} must be set too`);
    }
    return { issuer, audience, algorithms: ALLOWED_ALGORITHMS, getKey: remoteKeys(parseJwksUrl(jwksUrl, config.production)) };
  }

  if ((config.production || !config.devAuth) && config.ownSignIn) return null;
  if (config.production) {
    const missing = ['OIDC_ISSUER', audience ? null : 'OIDC_AUDIENCE', jwksUrl ? null : 'OIDC_JWKS_URL'].filter(
      (v): v is string => v !== null,
    );
    throw new Error(`${listNames(missing)} must be set in production`);
  }
  if (!config.devAuth) {
    throw new Error(
      'no identity provider is configured: set OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL, or set DEV_AUTH=on outside production',
    );
  }
  const devKey = await loadOrCreateDevIssuerKey(config.dataDir);
  return {
    issuer: DEV_ISSUER,
    audience: DEV_AUDIENCE,
    algorithms: [DEV_ALGORITHM],
    getKey: createLocalJWKSet({ keys: [devKey.publicJwk] }),
  };
}

function listNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function parseJwksUrl(jwksUrl: string, production: boolean): URL {
  let url: URL;
  try {
    url = new URL(jwksUrl);
  } catch {
    throw new Error(`OIDC_JWKS_URL is not a valid URL: ${jwksUrl}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('OIDC_JWKS_URL must be an https URL');
  }
  // Whoever can alter the key set in transit can mint tokens, so plain http is
  // only tolerated where it cannot cross a network (a loopback sidecar).
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (production && url.protocol === 'http:' && !loopback) {
    throw new Error('OIDC_JWKS_URL must use https in production');
  }
  return url;
}

/** Thrown by the key lookup when the identity provider, not the token, is at fault. */
class KeySetUnavailable extends Error {}

const TOKEN_SIDE_KEY_ERRORS = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_NOT_SUPPORTED']);

function remoteKeys(url: URL): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url);
  return async (protectedHeader, token) => {
    try {
      return await remote(protectedHeader, token);
    } catch (err) {
      if (TOKEN_SIDE_KEY_ERRORS.has(errorCode(err))) throw err;
      throw new KeySetUnavailable('the identity provider key set could not be loaded', { cause: err });
    }
  };
}

async function verifyToken(token: string, source: KeySource, options: JWTVerifyOptions): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    payload = await verifyWithCandidates(token, source.getKey, options);
  } catch (err) {
    throw verificationFailure(err, source);
  }
  // jose only looks at iat when maxTokenAge is set, but a token minted in the
  // future is as suspect as one with a future nbf.
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) {
    throw invalidToken('not_yet_valid', 'the token is not valid yet: it was issued in the future (check the clocks)');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    throw invalidToken('claims', 'the token has no subject (sub claim)');
  }
  return payload;
}

/**
 * A token without `kid` can match several keys of one type; jose then hands
 * the candidates back and leaves trying them to the caller.
 */
async function verifyWithCandidates(token: string, getKey: JWTVerifyGetKey, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, getKey, options)).payload;
  } catch (err) {
    if (errorCode(err) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err;
    for await (const candidate of err as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, candidate, options)).payload;
      } catch (inner) {
        if (errorCode(inner) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw inner;
      }
    }
    throw err;
  }
}

function verificationFailure(err: unknown, source: KeySource): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof KeySetUnavailable) {
    // An outage at the identity provider says nothing about the token; a 401
    // would send clients off to sign in again for no reason.
    const unavailable = new AppError('SERVICE_UNAVAILABLE', 'the identity provider signing keys could not be loaded; try again shortly', {
      reason: 'jwks_unavailable',
    });
    unavailable.cause = err.cause;
    return unavailable;
  }
  const code = errorCode(err);
  const claim = (err as { claim?: unknown }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalidToken('expired', 'the token has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return claimFailure(claim, (err as { reason?: unknown }).reason, source);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return invalidToken('algorithm', `the token is signed with an unsupported algorithm; accepted: ${source.algorithms.join(', ')}`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalidToken('signature', 'the token signature is invalid: it was not signed by the identity provider');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalidToken('signature', 'the token was signed with a key the identity provider does not publish');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return invalidToken('malformed', 'the token is not a well-formed JWT');
    default:
      if (JOSE_ERROR_CODE.test(code)) return invalidToken('signature', 'the token could not be verified');
      throw err;
  }
}

function claimFailure(claim: unknown, reason: unknown, source: KeySource): AppError {
  switch (claim) {
    case 'iss':
      return reason === 'missing'
        ? invalidToken('issuer', 'the token has no issuer (iss claim)')
        : invalidToken('issuer', `the token was not issued by the trusted issuer ${source.issuer}`);
    case 'aud':
      return reason === 'missing'
        ? invalidToken('audience', 'the token has no audience (aud claim)')
        : invalidToken('audience', `the token is not meant for this service (audience ${source.audience})`);
    case 'nbf':
      return reason === 'invalid'
        ? invalidToken('claims', 'the token nbf claim is not a number')
        : invalidToken('not_yet_valid', 'the token is not valid yet (nbf is in the future; check the clocks)');
    case 'sub':
      return invalidToken('claims', 'the token has no subject (sub claim)');
    case 'exp':
      return invalidToken('claims', reason === 'missing' ? 'the token has no expiry (exp claim)' : 'the token exp claim is not a number');
    default:
      return invalidToken('claims', `the token ${typeof claim === 'string' ? `${claim} claim` : 'claims'} failed validation`);
  }
}

function invalidToken(reason: Exclude<AuthFailureReason, 'missing'>, message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { reason }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function toIdentity(issuer: string, payload: JWTPayload): VerifiedIdentity {
  return {
    issuer,
    subject: payload.sub as string,
    email: typeof payload.email === 'string' ? payload.email : null,
    name: typeof payload.name === 'string' ? payload.name : null,
    issuedAt: typeof payload.iat === 'number' ? payload.iat : null,
  };
}
