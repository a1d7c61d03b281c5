import type { Prisma, TeamRole } from '@prisma/client';
import type { ServiceDeps } from '../service-deps.js';

export type Tx = Prisma.TransactionClient;
export type ListInput = { teamId: string; limit?: number | null; cursor?: string | null };

export interface TeamView {
  teamId: string;
  name: string;
  /** The caller's role in the team. */
  role: TeamRole;
  billingOwnerId: string;
  createdAt: Date;
}

export interface TeamMemberView {
  userId: string;
  email: string | null;
  displayName: string | null;
  role: TeamRole;
  joinedAt: Date;
}

export interface TeamDeps {
  /** Sets the seats the billing owner's subscription bills (src/billing/service.ts, setSeats). */
  setSeats(userId: string, seats: number, tx: Prisma.TransactionClient): Promise<void>;
}

/** What every team operation is given: the database, the clock, and the billing it keeps the seats of. */
export type TeamContext = Pick<ServiceDeps, 'db' | 'clock'> & TeamDeps;
