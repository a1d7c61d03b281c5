import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * Connects to a tool endpoint as an agent client does, with the official MCP SDK client and the
 * headers a configuration holds: the MCP handshake over Streamable HTTP, then closes. What the
 * endpoint answered is kept (the HTTP status of a refusal, the server's name on success).
 */

export type ProbeResult =
  | { ok: true; serverName: string | null }
  | {
      ok: false;
      /** The HTTP status of the refusal; null when no answer came (connection refused, time out, not an MCP endpoint). */
      status: number | null;
      /** Whether the refusal invites an OAuth sign-in (a WWW-Authenticate challenge). */
      oauthOffered: boolean;
      message: string;
    };

const TIMEOUT_MS = 15_000;

export async function probe(url: string, headers: Record<string, string>): Promise<ProbeResult> {
  let status: number | null = null;
  let oauthOffered = false;
  let refusal = '';
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok && status === null && response.status !== 405) {
      status = response.status;
      oauthOffered = /bearer/i.test(response.headers.get('www-authenticate') ?? '');
      try {
        refusal = ((await response.clone().json()) as { error?: { message?: string } }).error?.message ?? '';
      } catch {
        refusal = '';
      }
    }
    return response;
  };
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: null, oauthOffered: false, message: `'${url}' is not a URL` };
  }
  const transport = new StreamableHTTPClientTransport(target, { fetch: recording, requestInit: { headers } });
  const client = new Client({ name: 'wfctl-doctor', version: '0.1.0' });
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
    const info = client.getServerVersion();
    return { ok: true, serverName: info?.name ?? null };
  } catch (error) {
    const message =
      error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
    return { ok: false, status, oauthOffered, message: refusal || message };
  } finally {
    await client.close().catch(() => {});
  }
}
