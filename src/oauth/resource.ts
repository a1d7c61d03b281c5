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

/** The deployment a resource identifier names, or null when it is not one of this service's tool endpoints. */
export function deploymentOfResource(publicBaseUrl: string, resource: string): string | null {
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
