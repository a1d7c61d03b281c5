import { isIP } from 'node:net';
import { guardedFetch, isSpecialUseAddress } from '../net/guarded-fetch.js';
import type { ClientMetadataDocument } from './known-clients.js';
import { clientMetadataProblem, DEVICE_CODE_GRANT } from './redirect-uris.js';

/**
 * Client ID metadata documents (the MCP clients' preferred registration: `client_id` is an https
 * URL whose JSON the server fetches). oidc-provider asks for them through `fetch` below, which goes
 * through the guarded fetcher (src/net/guarded-fetch.ts: name resolved, special-use addresses
 * refused before connecting, the connection pinned to the checked address, 2.5 s and 5 KiB at most,
 * no redirects). A document is held to the rules of dynamic registration (src/oauth/redirect-uris.ts:
 * redirect URIs, bounded name, no `sector_identifier_uri`), and a client with loopback or IDE-scheme
 * redirect URIs is a native one (RFC 8252: a loopback URI matches on any port).
 *
 * When the live document cannot be had (no egress, the client's host down, an answer that is not a
 * document), the pinned copy of a known IDE client (src/oauth/known-clients.ts) is used instead.
 * The test-only setting lets documents be fetched from loopback over plain http.
 */

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

class ClientDocumentRefused extends Error {}

/** A document made ready for the library, or the reason it is refused. */
function checkClientDocument(document: unknown, clientId: string): ClientMetadataDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientDocumentRefused('the client ID metadata document is not a JSON object');
  const metadata = { ...(document as Record<string, unknown>) };
  if (metadata.client_id !== clientId) throw new ClientDocumentRefused('the document names another client_id');
  const problem = clientMetadataProblem(metadata);
  if (problem) throw new ClientDocumentRefused(problem);
  const uris = metadata.redirect_uris as string[];
  if (metadata.application_type === undefined && uris.some((u) => !u.startsWith('https:'))) metadata.application_type = 'native';
  // The device grant is the command-line tool's alone (src/oauth/device-flow.ts): a document may list it, the client does not get it.
  if (Array.isArray(metadata.grant_types)) metadata.grant_types = metadata.grant_types.filter((g) => g !== DEVICE_CODE_GRANT);
  return metadata as ClientMetadataDocument;
}

export function createClientMetadataPolicy(options: {
  allowLoopback: boolean;
  /** False: never fetch (no egress); known clients' pinned copies only. */
  fetch: boolean;
  known: ReadonlyMap<string, ClientMetadataDocument>;
  onFallback?: (clientId: string, reason: string) => void;
}) {
  const loopbackHost = (hostname: string) => LOOPBACK.has(hostname.replace(/^\[|\]$/g, ''));

  function pinned(clientId: string, reason: string): Response | null {
    const copy = options.known.get(clientId);
    if (!copy) return null;
    options.onFallback?.(clientId, reason);
    return Response.json(checkClientDocument(copy, clientId), { headers: { 'cache-control': 'max-age=3600' } });
  }

  return {
    /** Whether a client_id URL may be fetched at all: never a host written as a special-use address (known clients always). */
    allowFetch(clientId: string): boolean {
      if (options.known.has(clientId)) return true;
      const url = URL.parse(clientId);
      if (!url) return false;
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (options.allowLoopback && loopbackHost(host)) return true;
      if (host === 'localhost' || host.endsWith('.localhost')) return false;
      return !(isIP(host) && isSpecialUseAddress(host));
    },
    allowClient(metadata: { redirectUris?: string[] }): boolean {
      return clientMetadataProblem({ redirect_uris: metadata.redirectUris ?? [] }) === null;
    },
    /**
     * The fetch oidc-provider uses (client ID metadata documents are all it fetches: a public client
     * has no JWKS, and `sector_identifier_uri` and request objects by reference are refused).
     */
    async fetch(url: string | URL): Promise<Response> {
      const clientId = String(url);
      const target = new URL(clientId);
      const allowLoopback = options.allowLoopback && loopbackHost(target.hostname);
      if (allowLoopback) target.protocol = 'http:';
      let reason: string;
      if (!options.fetch) {
        const copy = pinned(clientId, 'fetching documents is off');
        if (copy) return copy;
        throw new ClientDocumentRefused('this service does not fetch client ID metadata documents (OAUTH_CLIENT_METADATA_FETCH=off)');
      }
      try {
        const response = await guardedFetch(target, { allowLoopback, timeoutMs: 2500, maxBytes: 5 * 1024 });
        if (response.status !== 200) {
          reason = `the document's host answered ${response.status}`;
        } else {
          let parsed: unknown;
          try {
            parsed = JSON.parse(await response.text());
          } catch {
            parsed = undefined;
          }
          try {
            const document = checkClientDocument(parsed, clientId);
            return Response.json(document, {
              headers: { 'cache-control': response.headers.get('cache-control') ?? 'max-age=300' },
            });
          } catch (error) {
            reason = error instanceof Error ? error.message : 'not a document';
          }
        }
      } catch (error) {
        reason = error instanceof Error ? error.message : 'the fetch failed';
      }
      const copy = pinned(clientId, reason);
      if (copy) return copy;
      throw new ClientDocumentRefused(reason);
    },
  };
}
