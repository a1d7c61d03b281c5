import type { Viewer } from '../auth/viewer.js';
import { notFound } from '../errors.js';
import { loadKnownClientDocuments } from '../oauth/known-clients.js';
import type { ServiceDeps } from '../service-deps.js';
import { recordAudit } from '../teams/audit.js';

/**
 * The applications (MCP clients) a user connected through the OAuth authorization server: one per
 * grant the user consented to. Disconnecting one deletes the grant with every code, access token
 * and refresh token issued under it, so the next request with them is refused on every instance.
 * The rows are those oidc-provider keeps (src/oauth-store/adapter.ts); this reads them as data.
 */

export interface ConnectedApp {
  connectedAppId: string;
  clientId: string;
  clientName: string;
  /** The deployments whose tool endpoints the application may use. */
  deploymentIds: string[];
  connectedAt: Date;
  /** When the connection lapses unless used (its refresh tokens are renewed on use). */
  expiresAt: Date | null;
}

interface GrantPayload {
  clientId?: string;
  iat?: number;
  resources?: Record<string, string>;
}

interface ClientPayload {
  client_id?: string;
  client_name?: string;
}

/** The last path segment of a tool endpoint URL: its deployment. */
function deploymentOf(resource: string): string | null {
  const match = /\/v1\/mcp\/([^/?#]+)\/?$/.exec(resource);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

export function createConnectedAppService({ db, clock, config }: ServiceDeps) {
  const prisma = db.prisma;
  // The IDE clients the service knows (src/oauth/known-clients.ts, with the operator's copies):
  // named as their document names them, as the consent page named them ("Claude Code", not its host).
  const knownNames = new Map<string, string>();
  for (const [clientId, document] of loadKnownClientDocuments(config.oauthClientMetadataDir)) {
    if (typeof document.client_name === 'string' && document.client_name.trim())
      knownNames.set(clientId, document.client_name.trim().slice(0, 80));
  }

  async function listConnectedApps(viewer: Viewer): Promise<ConnectedApp[]> {
    const now = clock.now();
    const grants = await prisma.oAuthRecord.findMany({
      where: { accountId: viewer.userId, kind: 'Grant', OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      select: { id: true, payload: true, expiresAt: true },
    });
    // Exactly what works: a grant is listed while it holds a live access or refresh token.
    const live = grants.length
      ? await prisma.oAuthRecord.findMany({
          where: {
            grantId: { in: grants.map((g) => g.id.slice('Grant:'.length)) },
            kind: { in: ['AccessToken', 'RefreshToken'] },
            consumedAt: null,
            expiresAt: { gt: now },
          },
          select: { grantId: true },
          distinct: ['grantId'],
        })
      : [];
    const working = new Set(live.map((r) => r.grantId));
    const listed = grants.filter((g) => working.has(g.id.slice('Grant:'.length)));
    const clientIds = [...new Set(listed.map((g) => (g.payload as GrantPayload).clientId).filter((c): c is string => !!c))];
    // Registered clients in one query; clients known by a pinned metadata document by its name, other
    // clients with a metadata document by their host.
    const clients = clientIds.length
      ? await prisma.oAuthRecord.findMany({ where: { id: { in: clientIds.map((c) => `Client:${c}`) } }, select: { payload: true } })
      : [];
    const names = new Map(clients.map((c) => [(c.payload as ClientPayload).client_id, (c.payload as ClientPayload).client_name]));
    return listed
      .map((g) => {
        const payload = g.payload as GrantPayload;
        const clientId = payload.clientId ?? '';
        const documentHost = /^https:\/\//.test(clientId) ? URL.parse(clientId)?.host : undefined;
        return {
          connectedAppId: g.id.slice('Grant:'.length),
          clientId,
          clientName: knownNames.get(clientId) ?? names.get(clientId) ?? documentHost ?? clientId,
          deploymentIds: Object.keys(payload.resources ?? {})
            .map(deploymentOf)
            .filter((d): d is string => d !== null),
          connectedAt: new Date((payload.iat ?? 0) * 1000),
          expiresAt: g.expiresAt,
        };
      })
      .sort((a, b) => b.connectedAt.getTime() - a.connectedAt.getTime() || (a.connectedAppId < b.connectedAppId ? 1 : -1));
  }

  async function disconnectApp(viewer: Viewer, connectedAppId: string): Promise<{ connectedAppId: string; deleted: true }> {
    return prisma.$transaction(async (tx) => {
      const { count } = await tx.oAuthRecord.deleteMany({ where: { id: `Grant:${connectedAppId}`, accountId: viewer.userId } });
      if (count === 0) throw notFound('connected app', connectedAppId);
      await tx.oAuthRecord.deleteMany({ where: { grantId: connectedAppId } });
      await recordAudit(tx, clock.now(), {
        userId: viewer.userId,
        action: 'oauth_connection.revoked',
        actorUserId: viewer.userId,
        targetType: 'connected_app',
        targetId: connectedAppId,
      });
      return { connectedAppId, deleted: true as const };
    });
  }

  return { listConnectedApps, disconnectApp };
}
