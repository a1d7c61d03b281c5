/**
 * Which redirect URIs a client may register (docs/mcp.md, "Signing in with OAuth"): loopback http on
 * any port (RFC 8252), https, and the custom schemes of the IDEs that use one. Checked before the
 * registration reaches oidc-provider, with an RFC 7591 error naming the refused URI.
 */

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
export function redirectUrisProblem(uris: readonly unknown[]): string | null {
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return problem;
  }
  return null;
}

type RegistrationCheck = { error: { error: string; error_description: string }; body?: undefined } | { error?: undefined; body: string };

/**
 * A dynamic registration request checked and completed: redirect URIs as above; clients with a
 * loopback or custom-scheme URI registered as native (so a loopback URI matches on any port).
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
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    return { error: { error: 'invalid_redirect_uri', error_description: 'redirect_uris must list at least one redirect URI' } };
  const problem = redirectUrisProblem(uris);
  if (problem) return { error: { error: 'invalid_redirect_uri', error_description: problem } };
  if (metadata.application_type === undefined && (uris as string[]).some((u) => !u.startsWith('https:')))
    metadata.application_type = 'native';
  return { body: JSON.stringify(metadata) };
}
