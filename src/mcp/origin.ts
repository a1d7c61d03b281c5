import { RpcFailure } from './protocol.js';
import { errorTable } from '../errors.js';

/**
 * Which browser origins may call the tool endpoint. MCP's Streamable HTTP transport requires the
 * server to validate Origin (DNS rebinding) and to answer 403 when it is present and not allowed.
 * Clients that are not browsers send no Origin and are not affected.
 *
 * Allowed: the origin of PUBLIC_BASE_URL (the service's own pages), loopback origins (tools such
 * as an MCP inspector running on the developer's machine; a rebinding page has its own host name
 * as origin, never a loopback one), and the origins listed in MCP_ALLOWED_ORIGINS (`*` for any).
 * An allowed origin also gets the CORS headers a browser needs to read the answer, including
 * Mcp-Session-Id.
 */

export interface OriginPolicy {
  /** Throws a 403 JSON-RPC error for an origin that is present and not allowed; returns the CORS headers otherwise. */
  check(origin: string | null): Record<string, string>;
  /** The answer to a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
  preflight(origin: string): Record<string, string>;
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Response headers a browser client needs to see (the session id above all). */
const EXPOSED = 'Mcp-Session-Id, WWW-Authenticate, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';

/** `scheme://host[:port]` as browsers send it, or null for anything else (including "null"). */
function normalizeOrigin(value: string): string | null {
  if (!/^https?:\/\/[^/?#]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

export function createOriginPolicy(options: { publicBaseUrl: string; allowedOrigins: string[] }): OriginPolicy {
  const any = options.allowedOrigins.includes('*');
  const allowed = new Set<string>([new URL(options.publicBaseUrl).origin]);
  for (const o of options.allowedOrigins) {
    const normal = normalizeOrigin(o);
    if (normal) allowed.add(normal);
  }

  function isAllowed(origin: string): boolean {
    if (any) return true;
    const normal = normalizeOrigin(origin);
    if (!normal) return false;
    return allowed.has(normal) || LOOPBACK_HOSTS.test(new URL(normal).hostname);
  }

  function refuse(origin: string): never {
    throw new RpcFailure(
      403,
      errorTable.FORBIDDEN.jsonRpc,
      `Forbidden: requests from the origin '${origin}' are not allowed on this endpoint`,
      null,
      {
        code: 'FORBIDDEN',
        reason: 'origin_not_allowed',
        origin,
      },
    );
  }

  return {
    check(origin): Record<string, string> {
      if (origin === null) return {};
      if (!isAllowed(origin)) refuse(origin);
      return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
    },
    preflight(origin) {
      if (!isAllowed(origin)) refuse(origin);
      return {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      };
    },
  };
}
