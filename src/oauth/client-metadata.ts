import { isIP } from 'node:net';
import { redirectUrisProblem } from './redirect-uris.js';

/**
 * Client ID metadata documents (the MCP clients' preferred registration: `client_id` is an https
 * URL whose JSON the server fetches). oidc-provider fetches them with its own limits — https only,
 * 5 KiB, 2.5 s, no redirects, the socket dropped when the host resolves to a private, loopback or
 * other special-use address, `client_id` must equal the URL, cached by Cache-Control within the
 * configured bounds. This adds: hosts written as such an address, or `localhost`, are refused
 * before any fetch; the redirect URIs follow the same rules as dynamic registration. The test-only
 * setting lets documents be fetched from loopback over plain http.
 */
const PRIVATE_V4 = [
  /^0\./,
  /^10\./,
  /^127\./,
  /^169\.254\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^192\.168\./,
  /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
];
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const kind = isIP(host);
  if (kind === 4) return PRIVATE_V4.some((r) => r.test(host));
  if (kind === 6) return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:');
  return false;
}

export function createClientMetadataPolicy(options: { allowLoopback: boolean }) {
  return {
    allowFetch(clientId: string): boolean {
      const url = URL.parse(clientId);
      if (!url) return false;
      if (options.allowLoopback && LOOPBACK.has(url.hostname.replace(/^\[|\]$/g, ''))) return true;
      return !isPrivateHost(url.hostname);
    },
    allowClient(redirectUris: readonly string[]): boolean {
      return redirectUris.length > 0 && redirectUrisProblem(redirectUris) === null;
    },
    /**
     * The fetch oidc-provider uses. With the test-only setting, a document on a loopback host is
     * fetched over plain http (the test serves it there) and without the special-use address check.
     */
    fetch(url: string | URL, init: RequestInit & { dispatcher?: unknown }): Promise<Response> {
      const target = new URL(url);
      if (options.allowLoopback && LOOPBACK.has(target.hostname.replace(/^\[|\]$/g, ''))) {
        target.protocol = 'http:';
        const { dispatcher: _dropped, ...rest } = init;
        return globalThis.fetch(target, rest);
      }
      return globalThis.fetch(url, init as RequestInit);
    },
  };
}
