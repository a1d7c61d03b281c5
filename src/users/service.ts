import type { VerifiedIdentity } from '../auth/verify.js';
import { newId } from '../clock.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../errors.js';
import type { Viewer } from '../graphql/context.js';
import type { ServiceDeps } from '../services.js';

/** The user of spec 2.6. */
export interface UserDto {
  userId: string;
  email: string | null;
  workflowCount: number;
  deploymentCount: number;
  subscriptionCount: number;
  createdAt: string;
  updatedAt: string;
}

export function createUserService({ db, clock }: ServiceDeps) {
  const prisma = db.prisma;

  /**
   * The user behind a verified ID token, created by their first authenticated request.
   * Concurrent first requests race on the (issuer, subject) unique key: the losers read the
   * winner's row, so exactly one user exists and every request succeeds.
   */
  async function resolveViewer(identity: VerifiedIdentity): Promise<Viewer> {
    const where = { issuer_subject: { issuer: identity.issuer, subject: identity.subject } };
    let user = await prisma.user.findUnique({ where, select: { id: true, email: true } });
    if (!user) {
      try {
        const now = clock.now();
        user = await prisma.user.create({
          data: { id: newId('usr'), issuer: identity.issuer, subject: identity.subject, email: identity.email, displayName: identity.name, createdAt: now, updatedAt: now },
          select: { id: true, email: true },
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        user = await prisma.user.findUnique({ where, select: { id: true, email: true } });
        if (!user) throw error;
      }
    } else if (identity.email && identity.email !== user.email) {
      // The identity provider is the source of truth for the e-mail address.
      user = await prisma.user.update({ where: { id: user.id }, data: { email: identity.email }, select: { id: true, email: true } });
    }
    return { userId: user.id, email: user.email, issuer: identity.issuer, subject: identity.subject };
  }

  async function getMe(viewer: Viewer): Promise<UserDto> {
    const user = await prisma.user.findUnique({
      where: { id: viewer.userId },
      select: {
        id: true,
        email: true,
        createdAt: true,
        updatedAt: true,
        _count: { select: { workflows: true, deployments: true, library: { where: { sourceType: 'subscribed' } } } },
      },
    });
    if (!user) throw new AppError('UNAUTHORIZED', 'the account of this token no longer exists');
    return {
      userId: user.id,
      email: user.email,
      workflowCount: user._count.workflows,
      deploymentCount: user._count.deployments,
      subscriptionCount: user._count.library,
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    };
  }

  return { resolveViewer, getMe };
}

export type UserService = ReturnType<typeof createUserService>;
