/**
 * Which redirect URIs a client may register (docs/mcp.md, "Signing in with OAuth"): loopback http on
 * any port (RFC 8252), https, and the custom schemes of the IDEs that use one. Checked before the
 * registration reaches oidc-provider, with an RFC 7591 error naming the refused URI.
 */

/**
 * The device authorization grant (RFC 8628), the command-line tool's alone (src/oauth/device-flow.ts):
 * registration refuses it and client ID metadata documents lose it.
 */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Custom URI schemes of the IDEs (each opens the IDE itself, so no other program receives the code). */
const IDE_SCHEMES = ['cursor:', 'vscode:', 'vscode-insiders:', 'windsurf:', 'claude:'] as const;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or null when it is allowed. */
function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== 'string') return 'redirect_uris must be strings';
  const url = URL.parse(raw);
  if (!url) return `redirect URI '${raw.slice(0, 200)}' is not a URL`;
  if (url.hash || raw.includes('#')) return `redirect URI '${raw.slice(0, 200)}' must not have a fragment`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `redirect URI '${raw.slice(0, 200)}' uses http on a host that is not loopback: use https, or http://127.0.0.1:<port>/... for a program on this machine`;
  if ((IDE_SCHEMES as readonly string[]).includes(url.protocol)) return null;
  return `redirect URI scheme '${url.protocol}' is not allowed: use https, loopback http, or one of ${IDE_SCHEMES.map((s) => `${s}//`).join(', ')}`;
}

/** The first problem of a list of redirect URIs, or null. */
function redirectUrisProblem(uris: readonly unknown[]): string | null {
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return problem;
  }
  return null;
}

/** Whether a redirect URI is one a browser error may be sent to before consent: loopback http or an IDE's own scheme. */
export function isNativeRedirect(raw: string): boolean {
  const url = URL.parse(raw);
  if (!url) return false;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname);
  return (IDE_SCHEMES as readonly string[]).includes(url.protocol);
}

/** Bounds of client metadata (dynamic registration and metadata documents alike). */
export const CLIENT_METADATA_LIMITS = {
  /** Largest registration request body. */
  bodyBytes: 8 * 1024,
  clientNameLength: 80,
  redirectUris: 10,
  uriLength: 512,
} as const;

/**
 * Metadata the service refuses outright: `sector_identifier_uri` would make it fetch a URL of the
 * client's choosing (pairwise subjects are not offered), `jwks_uri`/`request_uris` likewise (public
 * clients only, no request objects by reference), and logout URIs (RP-initiated logout is off).
 */
const REFUSED_METADATA = [
  'sector_identifier_uri',
  'jwks_uri',
  'request_uris',
  'post_logout_redirect_uris',
  'backchannel_logout_uri',
  'frontchannel_logout_uri',
  'initiate_login_uri',
];

/** Metadata kept from a registration; anything else is dropped (RFC 7591 lets a server ignore it). */
const KEPT_METADATA = new Set([
  'client_name',
  'client_uri',
  'redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'application_type',
  'scope',
  'software_id',
  'software_version',
]);

/** Why a set of client metadata is refused (bounds, redirect URIs, refused fields), or null. */
export function clientMetadataProblem(metadata: Record<string, unknown>): string | null {
  for (const name of REFUSED_METADATA) {
    if (metadata[name] !== undefined) return `${name} is not accepted by this service`;
  }
  const name = metadata.client_name;
  if (name !== undefined) {
    if (typeof name !== 'string') return 'client_name must be a string';
    if (name.length > CLIENT_METADATA_LIMITS.clientNameLength)
      return `client_name is longer than ${CLIENT_METADATA_LIMITS.clientNameLength} characters`;
    // Control and formatting characters (line breaks, bidirectional overrides) could dress a name up as something else.
    if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) return 'client_name must not contain control or formatting characters';
  }
  if (metadata.client_uri !== undefined) {
    const uri = typeof metadata.client_uri === 'string' ? URL.parse(metadata.client_uri) : null;
    if (!uri || uri.protocol !== 'https:' || (metadata.client_uri as string).length > CLIENT_METADATA_LIMITS.uriLength)
      return `client_uri must be an https URL of at most ${CLIENT_METADATA_LIMITS.uriLength} characters`;
  }
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) return 'redirect_uris must list at least one redirect URI';
  if (uris.length > CLIENT_METADATA_LIMITS.redirectUris)
    return `redirect_uris may list at most ${CLIENT_METADATA_LIMITS.redirectUris} URIs`;
  if (uris.some((u) => typeof u === 'string' && u.length > CLIENT_METADATA_LIMITS.uriLength))
    return `a redirect URI is longer than ${CLIENT_METADATA_LIMITS.uriLength} characters`;
  return redirectUrisProblem(uris);
}

type RegistrationCheck = { error: { error: string; error_description: string }; body?: undefined } | { error?: undefined; body: string };

/**
 * A dynamic registration request checked and completed: the bounds and rules above, unknown
 * metadata dropped; clients with a loopback or custom-scheme URI registered as native (so a
 * loopback URI matches on any port).
 */
export function checkRegistration(body: string): RegistrationCheck {
  let metadata: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    metadata = parsed as Record<string, unknown>;
  } catch {
    return {
      error: {
        error: 'invalid_client_metadata',
        error_description: 'the registration must be a JSON object of client metadata (RFC 7591)',
      },
    };
  }
  const problem = clientMetadataProblem(metadata);
  if (problem) {
    const error =
      /redirect/i.test(problem) && !/^(client_|sector|jwks|request|post_logout|backchannel|frontchannel|initiate)/.test(problem)
        ? 'invalid_redirect_uri'
        : 'invalid_client_metadata';
    return { error: { error, error_description: problem } };
  }
  if (Array.isArray(metadata.grant_types) && metadata.grant_types.includes(DEVICE_CODE_GRANT)) {
    return {
      error: {
        error: 'invalid_client_metadata',
        error_description: `grant_types: the device authorization grant (${DEVICE_CODE_GRANT}) is reserved for this service's own command-line tool; register with authorization_code and refresh_token`,
      },
    };
  }
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) if (KEPT_METADATA.has(key)) kept[key] = value;
  const uris = kept.redirect_uris as string[];
  if (kept.application_type === undefined && uris.some((u) => !u.startsWith('https:'))) kept.application_type = 'native';
  return { body: JSON.stringify(kept) };
}
