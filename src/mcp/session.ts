import { createHmac, randomBytes, timingSafeEqual, createSecretKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { BoundedCache } from '../cache/bounded.js';
import { writeFirst } from '../data-files.js';
import path from 'node:path';
import type { Config } from '../config.js';
import { isAdapter, type Adapter } from '../manifest/adapter-list.js';
import { SUPPORTED_VERSIONS, type LegacyVersion } from './protocol.js';

/**
 * The tool endpoint keeps no state between requests: what a connection settled at `initialize`
 * (deployment, adapter, protocol revision) travels in the Mcp-Session-Id it was given, signed
 * so that any instance holding the same key can trust it, and none has to remember it.
 *
 * Format: `mcp1.<base64url JSON>.<base64url HMAC-SHA256>` (visible ASCII only, as MCP requires).
 * A session never expires: it grants nothing (every request is authenticated and checked
 * against the deployment afresh), it only saves the client from repeating its choices.
 */
interface SessionClaims {
  deploymentId: string;
  adapter: Adapter;
  protocolVersion: LegacyVersion;
}

const PREFIX = 'mcp1';
const MAX_LENGTH = 512;
/**
 * Session ids already verified, kept with their claims (the cache `mcp_sessions`): a connection
 * sends its id with every request, and the id's HMAC was the costliest step of reading it. Only
 * ids this service signed are kept, the least recently used dropped past this many, so ids sent
 * at random fill nothing.
 */
const VERIFIED_MAX = 10_000;

export interface SessionCodec {
  issue(claims: SessionClaims): Promise<string>;
  /** The claims of a session id this service signed, or null for anything else. The claims are shared: callers only read them. */
  read(sessionId: string): Promise<SessionClaims | null>;
}

/** MCP_SESSION_SECRET, or else a random key stored once under DATA_DIR (first writer wins). */
async function loadKey(config: Pick<Config, 'mcpSessionSecret' | 'dataDir'>): Promise<Buffer> {
  if (config.mcpSessionSecret) return Buffer.from(config.mcpSessionSecret, 'utf8');
  const dir = path.join(config.dataDir, 'mcp-session');
  const file = path.join(dir, 'secret.key');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (existing?.trim()) return Buffer.from(existing.trim(), 'hex');
  return Buffer.from((await writeFirst(file, randomBytes(32).toString('hex'))).trim(), 'hex');
}

export function createSessionCodec(config: Pick<Config, 'mcpSessionSecret' | 'dataDir'>): SessionCodec {
  // A KeyObject made once: handing createHmac the raw bytes would import the key on every call.
  let key: Promise<KeyObject> | undefined;
  const keyOnce = () => (key ??= loadKey(config).then((bytes) => createSecretKey(bytes)));
  const sign = async (payload: string) =>
    createHmac('sha256', await keyOnce())
      .update(`${PREFIX}.${payload}`)
      .digest();

  const verified = new BoundedCache<string, SessionClaims>('mcp_sessions', VERIFIED_MAX);

  return {
    async issue(claims) {
      // The nonce makes every connection's id distinct, as MCP asks of session ids.
      const body = { d: claims.deploymentId, a: claims.adapter, v: claims.protocolVersion, n: randomBytes(9).toString('base64url') };
      const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
      return `${PREFIX}.${payload}.${(await sign(payload)).toString('base64url')}`;
    },
    async read(sessionId) {
      const known = verified.get(sessionId);
      if (known) return known;
      if (sessionId.length > MAX_LENGTH) return null;
      const parts = sessionId.split('.');
      if (parts.length !== 3 || parts[0] !== PREFIX || !/^[A-Za-z0-9_-]+$/.test(parts[1]!) || !/^[A-Za-z0-9_-]+$/.test(parts[2]!))
        return null;
      const expected = await sign(parts[1]!);
      const given = Buffer.from(parts[2]!, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      const { d, a, v } = (body ?? {}) as Record<string, unknown>;
      if (typeof d !== 'string' || !isAdapter(a) || !(SUPPORTED_VERSIONS as readonly unknown[]).includes(v)) return null;
      const claims: SessionClaims = { deploymentId: d, adapter: a, protocolVersion: v as LegacyVersion };
      verified.set(sessionId, claims);
      return claims;
    },
  };
}
