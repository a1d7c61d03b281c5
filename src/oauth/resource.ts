/**
 * The tool endpoints as OAuth protected resources (RFC 9728): each deployment's endpoint is its own
 * resource, with its metadata at the well-known path built from the endpoint's path, naming this
 * service's authorization server. An access token is bound to exactly one of these resources.
 */

export const MCP_SCOPE = 'mcp';
const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource';
/** `/.well-known/oauth-protected-resource/v1/mcp/<deploymentId>`. */
export const PRM_PATH = /^\/\.well-known\/oauth-protected-resource\/v1\/mcp\/([^/]+)\/?$/;

/** The resource identifier of a deployment's tool endpoint: the endpoint's own URL. */
export function endpointResource(publicBaseUrl: string, deploymentId: string): string {
  return `${publicBaseUrl}/mcp/${encodeURIComponent(deploymentId)}`;
}

/** The loopback names one machine reaches itself by; `localhost` and `127.0.0.1` are the usual pair. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The base URL in each of the forms the service answers for: the configured one and, when it names
 * a loopback host, the same URL under the other loopback names (same scheme, port and path). A
 * service configured with any other host answers for that host only.
 */
export function baseUrlForms(publicBaseUrl: string): string[] {
  const url = new URL(publicBaseUrl);
  if (!LOOPBACK_NAMES.includes(url.hostname)) return [publicBaseUrl];
  return [
    publicBaseUrl,
    ...LOOPBACK_NAMES.filter((name) => name !== url.hostname).map((name) => {
      const alias = new URL(publicBaseUrl);
      alias.hostname = name;
      return `${alias.origin}${publicBaseUrl.slice(new URL(publicBaseUrl).origin.length)}`;
    }),
  ];
}

/**
 * The base URL in the form a request reached the service by: a loopback alias of the configured
 * base URL when the request's Host names one (and the same port), the configured base URL in every
 * other case. The Host header picks among the service's own forms only; it never adds one (no
 * host-header injection: a public service's links always use its configured address).
 */
export function baseUrlReachedBy(publicBaseUrl: string, requestUrl: URL): string {
  const configured = new URL(publicBaseUrl);
  if (!LOOPBACK_NAMES.includes(configured.hostname)) return publicBaseUrl;
  const host = requestUrl.hostname.toLowerCase();
  if (!LOOPBACK_NAMES.includes(host) || host === configured.hostname) return publicBaseUrl;
  // The port as written in the Host header (the request URL is always built as http://, so a
  // default port is empty on both sides).
  if (requestUrl.port !== configured.port) return publicBaseUrl;
  return baseUrlForms(publicBaseUrl).find((form) => new URL(form).hostname === host) ?? publicBaseUrl;
}

/**
 * The deployment a resource identifier names, or null when it is not one of this service's tool
 * endpoints (in any form the service answers for: see baseUrlForms).
 */
export function deploymentOfResource(publicBaseUrl: string, resource: string): string | null {
  for (const form of baseUrlForms(publicBaseUrl)) {
    const found = deploymentOfResourceIn(form, resource);
    if (found !== null) return found;
  }
  return null;
}

function deploymentOfResourceIn(publicBaseUrl: string, resource: string): string | null {
  const prefix = `${publicBaseUrl}/mcp/`;
  if (!resource.startsWith(prefix)) return null;
  const rest = resource.slice(prefix.length).replace(/\/$/, '');
  if (!rest || rest.includes('/') || rest.includes('?') || rest.includes('#')) return null;
  try {
    return decodeURIComponent(rest);
  } catch {
    return null;
  }
}

function protectedResourceMetadataUrl(publicBaseUrl: string, deploymentId: string): string {
  const url = new URL(endpointResource(publicBaseUrl, deploymentId));
  return `${url.origin}${WELL_KNOWN_PRM}${url.pathname}`;
}

/**
 * `publicBaseUrl` is the form the request reached the service by (baseUrlReachedBy): the resource
 * must be the URL the client was given, character for character (RFC 9728 §3.3). The authorization
 * server stays the configured issuer.
 */
export function protectedResourceMetadata(publicBaseUrl: string, deploymentId: string, issuer: string) {
  return {
    resource: endpointResource(publicBaseUrl, deploymentId),
    authorization_servers: [issuer],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: `Tool endpoint of deployment ${deploymentId}`,
    resource_documentation: `${new URL(publicBaseUrl).origin}/v1/reference`,
  };
}

/**
 * The WWW-Authenticate challenge of a 401 on a tool endpoint: where the client finds how to get a
 * token, and `invalid_token` when the request sent one that was refused.
 */
function bearerChallenge(publicBaseUrl: string, deploymentId: string, sentCredential: boolean): string {
  const parts = [`resource_metadata="${protectedResourceMetadataUrl(publicBaseUrl, deploymentId)}"`, `scope="${MCP_SCOPE}"`];
  if (sentCredential) parts.unshift('error="invalid_token"');
  return `Bearer ${parts.join(', ')}`;
}

/** Adds the challenge to a tool endpoint's 401 (a reply the service built, whose headers can be set). */
export function challengeUnauthorized(
  reply: { status: number },
  setHeader: (name: string, value: string) => void,
  publicBaseUrl: string,
  rawDeploymentId: string,
  sentCredential: boolean,
): void {
  if (reply.status !== 401) return;
  let deploymentId = rawDeploymentId;
  try {
    deploymentId = decodeURIComponent(rawDeploymentId);
  } catch {
    return;
  }
  setHeader('WWW-Authenticate', bearerChallenge(publicBaseUrl, deploymentId, sentCredential));
}
