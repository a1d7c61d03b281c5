import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Pinned copies of the client ID metadata documents of the IDE clients the service knows, used
 * when the live document cannot be fetched (no egress, the client's host down). docs/mcp.md,
 * "Known IDE clients", says where each comes from and how an operator refreshes or adds one:
 * OAUTH_CLIENT_METADATA_DIR names a directory of `*.json` documents read at start, each replacing
 * the shipped copy with the same `client_id` or adding a new client.
 *
 * Each copy holds what the client publishes (client_id, name, redirect URIs, grant and response
 * types, `none` authentication), less the device grant, which is the command-line tool's alone;
 * the service then applies the same rules to a pinned copy as to a fetched document
 * (src/oauth/client-metadata.ts), which also removes that grant from an operator's copy.
 */
export type ClientMetadataDocument = Record<string, unknown> & { client_id: string };

/** What every shipped client publishes alike: a public client of the authorization code grant. */
const PUBLIC_CODE_CLIENT = {
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

const SHIPPED_CLIENT_DOCUMENTS: readonly ClientMetadataDocument[] = [
  {
    // Anthropic's Claude Code CLI (`claude mcp login`); loopback callback on a port it picks.
    client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
    client_name: 'Claude Code',
    client_uri: 'https://claude.ai',
    redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  },
  {
    // Visual Studio Code (desktop: the loopback URI; vscode.dev: its redirect page).
    client_id: 'https://vscode.dev/oauth/client-metadata.json',
    client_name: 'Visual Studio Code',
    client_uri: 'https://vscode.dev/product',
    redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
    application_type: 'native',
  },
  {
    // OpenAI's Codex CLI.
    client_id: 'https://chatgpt.com/oauth/codex/client.json',
    client_name: 'Codex',
    redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
  },
  {
    // The Zed editor.
    client_id: 'https://zed.dev/oauth/client-metadata.json',
    client_name: 'Zed',
    redirect_uris: ['http://127.0.0.1/callback'],
  },
].map((document) => ({ ...document, ...PUBLIC_CODE_CLIENT }));

function isDocument(value: unknown): value is ClientMetadataDocument {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { client_id?: unknown }).client_id === 'string' &&
    /^https:\/\//.test((value as { client_id: string }).client_id)
  );
}

/**
 * The shipped copies, then the operator's documents from `dir` (each replacing the copy with its
 * client_id). A file that is not such a document stops the start with its name.
 */
export function loadKnownClientDocuments(dir: string | null): Map<string, ClientMetadataDocument> {
  const documents = new Map(SHIPPED_CLIENT_DOCUMENTS.map((d) => [d.client_id, d]));
  if (!dir) return documents;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const file = path.join(dir, name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`OAUTH_CLIENT_METADATA_DIR: ${name} is not valid JSON`, { cause: error });
    }
    if (!isDocument(parsed))
      throw new Error(
        `OAUTH_CLIENT_METADATA_DIR: ${name} is not a client ID metadata document (an object whose client_id is an https URL)`,
      );
    documents.set(parsed.client_id, parsed);
  }
  return documents;
}
