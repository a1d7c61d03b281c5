import { looksLikeApiKey } from '../api-keys/secret.js';
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import { requestIdOf } from '../http/request-id.js';
import { setReplyHeader, type Reply } from '../http/text-response.js';
import { INSTALL_PREFIX, keyOfAddress } from '../install/http.js';
import { chargeAfter, chargeBefore, chargedBefore, requestCharge } from '../limits/http.js';
import { MCP_PATH } from '../mcp/endpoint.js';
import { boundedRoute } from '../metrics/labels.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import { errorResponse } from '../rest/envelope.js';
import { newRequestScope, type ConnectionInfo, type ScopeDeps } from './request-scope.js';
import { routeRequest, type Faces } from './router.js';

/**
 * What every request goes through, whatever its face: the dashboard's files first (never charged),
 * then its charge before work, the route, its charge after, the error table, and the request id,
 * the rate-limit headers, the metrics and the access log on the way out.
 */

export interface Edge {
  faces: Faces;
  scopes: ScopeDeps;
  metrics: MetricsRegistry;
  /** Whether the access log line is written (built only then). */
  logsRequests: boolean;
}

/**
 * The reply with the request id and the rate-limit headers added. Every reply the service builds
 * has mutable headers, so they are set in place; a response with immutable headers (one that
 * came from fetch()) is copied instead.
 */
function withHeaders(response: Reply, requestId: string, extra: Record<string, string>): Reply {
  try {
    setReplyHeader(response, 'x-request-id', requestId);
    for (const k in extra) setReplyHeader(response, k, extra[k]!);
    return response;
  } catch {
    const fetched = response as Response;
    const headers = new Headers(fetched.headers);
    headers.set('x-request-id', requestId);
    for (const k in extra) headers.set(k, extra[k]!);
    return new Response(fetched.body, { status: fetched.status, statusText: fetched.statusText, headers });
  }
}

export async function answerRequest(edge: Edge, request: Incoming, connection: ConnectionInfo = {}): Promise<Reply> {
  const { faces, scopes } = edge;
  const { limiter, browser } = faces;
  const started = performance.now();
  const requestId = requestIdOf(request);
  const url = new URL(request.url);
  const path = url.pathname;
  // The credential-from-path step: an install address's key is the request's credential.
  const scope = newRequestScope(scopes, request, requestId, connection, keyOfAddress(path));
  let response: Reply;
  // The dashboard's files and page shell first: never rate-limited (a browser loading the
  // dashboard must not use up anyone's budget, or see a blank page because of it).
  const page = faces.dashboard.serve(request, path);
  if (page) {
    scope.route = `${request.method} /(dashboard)`;
    response = page;
  } else {
    const charge = requestCharge(request, path, {
      isToolEndpoint: MCP_PATH.test(path),
      hasSessionCookie: browser.hasSessionCookie(request),
      hasKeyInPath: path.startsWith(INSTALL_PREFIX) && path.split('/').some(looksLikeApiKey),
    });
    // Charge before work: a request anyone can send without a credential is refused before its
    // handler runs, so a refused request has no effect (docs/plans.md, "Rate limits").
    const refused = chargedBefore(charge) ? await chargeBefore(limiter, scope, request, path, charge) : null;
    if (refused) {
      response = refused;
    } else {
      try {
        response = await routeRequest(faces, request, url, scope);
      } catch (error) {
        const appError = AppError.from(error);
        if (appError.unexpected) scopes.log.error({ err: error, requestId, route: scope.route }, 'unexpected error');
        response = errorResponse(appError);
      }
      response = await chargeAfter(limiter, scope, charge, request, path, response);
    }
  }
  const out = withHeaders(response, requestId, scope.headers);
  const elapsedMs = performance.now() - started;
  edge.metrics.observeRequest(boundedRoute(scope.route, request.method), out.status, elapsedMs / 1000);
  if (edge.logsRequests)
    scopes.log.info(
      {
        requestId,
        method: request.method,
        route: scope.route,
        status: out.status,
        durationMs: Math.round(elapsedMs * 100) / 100,
        userId: scope.userId,
      },
      'request',
    );
  return out;
}
