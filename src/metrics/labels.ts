/**
 * Route labels of the request metrics are a fixed set: a label never carries a path or a method a
 * client chose, so a flood of made-up paths adds no series (docs/operations.md, "Metrics").
 */

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The authorization server's endpoints (src/oauth/authorization-server.ts, `routes`). */
const OAUTH_ENDPOINTS = new Set([
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
  '/oauth/jwks',
  '/oauth/session/end',
  '/oauth/par',
  '/oauth/me',
  '/oauth/introspect',
  '/oauth/device',
  '/oauth/device/auth',
  '/oauth/challenge',
  '/oauth/backchannel',
]);

const DISCOVERY = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/** The label of a path the authorization server answered (/oauth/*, /.well-known/*). */
export function authorizationServerRoute(path: string, isProtectedResourceMetadata: boolean): string {
  if (OAUTH_ENDPOINTS.has(path)) return path;
  if (path.startsWith('/oauth/interaction/')) return '/oauth/interaction/:uid';
  if (path.startsWith('/oauth/register/')) return '/oauth/register/:clientId';
  if (isProtectedResourceMetadata) return '/.well-known/oauth-protected-resource/v1/mcp/:deploymentId';
  if (DISCOVERY.has(path)) return path;
  for (const document of DISCOVERY) if (path.startsWith(`${document}/`)) return `${document}/*`;
  return path.startsWith('/.well-known/') ? '/.well-known/*' : '/oauth/*';
}

/** A route label (`METHOD template`) whose method is one of the usual ones; any other becomes OTHER. */
export function boundedRoute(route: string, method: string): string {
  if (METHODS.has(method) || !route.startsWith(`${method} `)) return route;
  return `OTHER ${route.slice(method.length + 1)}`;
}
