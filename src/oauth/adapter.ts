import type { Prisma } from '@prisma/client';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';

/**
 * oidc-provider's storage over the `oauth_records` table, so every instance sees the same clients,
 * codes, grants and tokens (a code redeemed on one instance is consumed for all). One row per
 * record, keyed by kind and id; `grantId` lets a grant's whole family (codes, access and refresh
 * tokens) be revoked at once, `accountId` lets the user's rows go with the account.
 */
export function createAdapterFactory(db: Database, clock: Clock): new (name: string) => Adapter {
  const prisma = db.prisma;

  return class PrismaOAuthAdapter implements Adapter {
    constructor(readonly name: string) {}

    private key(id: string): string {
      return `${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const data = {
        kind: this.name,
        payload: payload as Prisma.InputJsonValue,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        accountId: payload.accountId ?? null,
        expiresAt: expiresIn ? new Date(clock.now().getTime() + expiresIn * 1000) : null,
      };
      await prisma.oAuthRecord.upsert({ where: { id: this.key(id) }, create: { id: this.key(id), ...data }, update: data });
    }

    private async findWhere(where: Prisma.OAuthRecordWhereInput): Promise<AdapterPayload | undefined> {
      const row = await prisma.oAuthRecord.findFirst({ where, select: { payload: true, expiresAt: true, consumedAt: true } });
      if (!row || (row.expiresAt && row.expiresAt.getTime() <= clock.now().getTime())) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.findWhere({ id: this.key(id) });
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere({ kind: this.name, uid });
    }

    /** The device flow's user code (src/oauth/device-flow.ts): few live device codes, each minutes long, so a JSON filter suffices. */
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere({ kind: this.name, payload: { path: ['userCode'], equals: userCode } });
    }

    async consume(id: string): Promise<void> {
      await prisma.oAuthRecord.updateMany({ where: { id: this.key(id) }, data: { consumedAt: clock.now() } });
    }

    async destroy(id: string): Promise<void> {
      await prisma.oAuthRecord.deleteMany({ where: { id: this.key(id) } });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await prisma.oAuthRecord.deleteMany({ where: { grantId } });
    }
  };
}
