import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';
import type { Prisma } from '@prisma/client';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';

/**
 * The authorization server's storage (oidc-provider's adapter interface) over the `oauth_records`
 * table, so every instance sees the same clients, codes, grants and tokens. One row per record,
 * keyed by kind and id; `grantId` lets a grant's whole family be revoked at once, `accountId` lets
 * the user's rows go with the account.
 *
 * - **Hashed at rest.** Every record but grants and clients (whose ids are not secrets: a grant's
 *   id is the connected app's id, a client's id is public) is stored under the SHA-256 of its id,
 *   and its payload without the id, as API keys and browser sessions are: a copy of the table
 *   redeems nothing.
 * - **Single use, atomic.** `consume` is one conditional UPDATE (`consumed_at IS NULL`): of N
 *   concurrent redemptions of a code or a refresh token, on one instance or several, exactly one
 *   succeeds; the others are refused (`invalid_grant`).
 * - **A lost answer does not end a connection.** A refresh token presented again within
 *   REFRESH_GRACE_MS of its rotation, while the token its rotation issued has never been used, is a
 *   client retrying after losing the answer: the unused successor is dropped and a new one issued
 *   (there is never more than one live refresh token per rotation chain). After the window, or once
 *   the successor was used, it is reuse, and the library revokes the grant.
 * - **Lifetimes slide with use.** A grant (and its client) lives GRANT_IDLE_MS after its last
 *   token was issued; a client that never got a grant lives UNUSED_CLIENT_MS after registering.
 */

/** How long after a rotation the rotated refresh token may be presented again (a lost answer). */
const REFRESH_GRACE_MS = 5 * 60 * 1000;
/** A grant (a connection) lapses this long after its last token was issued. */
const GRANT_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** A registered client that never got a grant is removed after this long. */
const UNUSED_CLIENT_MS = 24 * 60 * 60 * 1000;

/** Kinds whose ids are not secrets and are stored as they are. */
// A device code (wfctl login --device) is found again by its user code, which must give back its
// id: it is kept as is, for its 10 minutes (src/oauth/device-flow.ts).
const PLAIN_KINDS = new Set(['Grant', 'Client', 'DeviceCode']);

/** An error the library turns into its own answer (e.g. `invalid_grant`). */
export type RedemptionRefused = (message: string) => Error;

interface AdapterPayload {
  [key: string]: unknown;
  grantId?: string;
  uid?: string;
  accountId?: string;
  consumed?: unknown;
  jti?: string;
}

export interface StorageAdapter {
  upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** The stored form of a secret id: SHA-256, base64url. */
function hashOAuthId(id: string): string {
  return hash('sha256', id, 'base64url');
}

/** The state of one request through the authorization server: which refresh token it rotated. */
const rotation = new AsyncLocalStorage<{ rotatedFrom?: string }>();

/** Runs one request of the authorization server (so a rotation and the token it issues are linked). */
export function withOAuthRequest<T>(run: () => Promise<T>): Promise<T> {
  return rotation.run({}, run);
}

interface AdapterContext {
  db: Database;
  clock: Clock;
  refused: RedemptionRefused;
}

class PrismaOAuthAdapter implements StorageAdapter {
  private readonly hashed: boolean;
  private readonly prisma: Database['prisma'];

  constructor(
    private readonly context: AdapterContext,
    readonly name: string,
  ) {
    this.hashed = !PLAIN_KINDS.has(name);
    this.prisma = context.db.prisma;
  }

  private key(id: string): string {
    return `${this.name}:${this.hashed ? hashOAuthId(id) : id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const now = this.context.clock.now().getTime();
    const expiresAt = this.expiryOf(now, expiresIn);
    const stored = this.hashed ? { ...payload, jti: undefined } : payload;
    const data = {
      kind: this.name,
      payload: JSON.parse(JSON.stringify(stored)) as Prisma.InputJsonValue,
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      accountId: payload.accountId ?? null,
      expiresAt,
      replaces: this.name === 'RefreshToken' ? (rotation.getStore()?.rotatedFrom ?? null) : null,
    };
    const key = this.key(id);
    if (this.name === 'Client') {
      // A client keeps the lifetime its grants gave it when its registration is written again.
      const existing = await this.prisma.oAuthRecord.findUnique({ where: { id: key }, select: { expiresAt: true } });
      if (existing?.expiresAt && existing.expiresAt > expiresAt!) data.expiresAt = existing.expiresAt;
    }
    await this.prisma.oAuthRecord.upsert({ where: { id: key }, create: { id: key, ...data }, update: data });
    const grantId = this.name === 'Grant' ? id : payload.grantId;
    if (grantId && (this.name === 'AccessToken' || this.name === 'RefreshToken' || this.name === 'Grant')) {
      await this.extendGrant(grantId, payload.clientId as string | undefined, new Date(now + GRANT_IDLE_MS));
    }
  }

  /** When a record written now lapses: the library's lifetime, but for grants and clients (lifetimes that slide with use). */
  private expiryOf(now: number, expiresIn: number): Date | null {
    if (this.name === 'Grant') return new Date(now + GRANT_IDLE_MS);
    // A registration's management token is of no use here (RFC 7592 management is off): it goes with an unused client.
    if (this.name === 'Client' || this.name === 'RegistrationAccessToken') return new Date(now + UNUSED_CLIENT_MS);
    return expiresIn ? new Date(now + expiresIn * 1000) : null;
  }

  /** Use keeps a connection: the grant, and the client it belongs to, live GRANT_IDLE_MS from now. */
  private async extendGrant(grantId: string, clientId: string | undefined, until: Date): Promise<void> {
    await this.prisma.oAuthRecord.updateMany({ where: { id: `Grant:${grantId}`, expiresAt: { lt: until } }, data: { expiresAt: until } });
    if (clientId)
      await this.prisma.oAuthRecord.updateMany({
        where: { id: `Client:${clientId}`, expiresAt: { lt: until } },
        data: { expiresAt: until },
      });
  }

  private async findWhere(where: Prisma.OAuthRecordWhereInput, id?: string): Promise<AdapterPayload | undefined> {
    const row = await this.prisma.oAuthRecord.findFirst({ where, select: { id: true, payload: true, expiresAt: true, consumedAt: true } });
    const now = this.context.clock.now().getTime();
    if (!row || (row.expiresAt && row.expiresAt.getTime() <= now)) return undefined;
    const payload = { ...(row.payload as AdapterPayload) };
    if (this.hashed && id !== undefined) payload.jti = id;
    // Connections never end with a browser session (rows written before this rule included).
    delete payload.expiresWithSession;
    if (!row.consumedAt) return payload;
    // A rotated refresh token presented again within the grace window, its successor never used:
    // shown unconsumed so that the library goes on to `consume`, which decides (below).
    if (this.name === 'RefreshToken' && now - row.consumedAt.getTime() <= REFRESH_GRACE_MS && (await this.unusedSuccessor(row.id)))
      return payload;
    return { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) };
  }

  private async unusedSuccessor(storedId: string): Promise<boolean> {
    const count = await this.prisma.oAuthRecord.count({ where: { kind: 'RefreshToken', replaces: storedId, consumedAt: null } });
    return count > 0;
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ id: this.key(id) }, id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ kind: this.name, uid });
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ kind: this.name, payload: { path: ['userCode'], equals: userCode } });
  }

  async consume(id: string): Promise<void> {
    const key = this.key(id);
    const now = this.context.clock.now();
    const { count } = await this.prisma.oAuthRecord.updateMany({ where: { id: key, consumedAt: null }, data: { consumedAt: now } });
    const request = rotation.getStore();
    if (count === 1) {
      if (this.name === 'RefreshToken' && request) request.rotatedFrom = key;
      return;
    }
    if (this.name === 'RefreshToken') {
      const row = await this.prisma.oAuthRecord.findUnique({ where: { id: key }, select: { consumedAt: true } });
      if (row?.consumedAt && now.getTime() - row.consumedAt.getTime() <= REFRESH_GRACE_MS) {
        // The retry takes the place of the successor the lost answer carried; of concurrent
        // retries only the one that deletes it goes on.
        const dropped = await this.prisma.oAuthRecord.deleteMany({ where: { kind: 'RefreshToken', replaces: key, consumedAt: null } });
        if (dropped.count > 0) {
          if (request) request.rotatedFrom = key;
          return;
        }
      }
    }
    throw this.context.refused(`${this.label()} was already used`);
  }

  private label(): string {
    return this.name === 'AuthorizationCode'
      ? 'the authorization code'
      : this.name === 'RefreshToken'
        ? 'the refresh token'
        : `the ${this.name}`;
  }

  async destroy(id: string): Promise<void> {
    await this.prisma.oAuthRecord.deleteMany({ where: { id: this.key(id) } });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.prisma.oAuthRecord.deleteMany({ where: { grantId } });
  }
}

/** The adapter class the library instantiates once per kind of record (`new Adapter(name)`). */
export function createAdapterFactory(db: Database, clock: Clock, refused: RedemptionRefused): new (name: string) => StorageAdapter {
  const context: AdapterContext = { db, clock, refused };
  return class extends PrismaOAuthAdapter {
    constructor(name: string) {
      super(context, name);
    }
  };
}
