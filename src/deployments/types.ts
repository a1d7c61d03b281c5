import type { Adapter, WorkflowManifest } from '../manifest/types.js';
import type { Prisma } from '@prisma/client';
import { TEXT_LIMITS } from '../text.js';
import type { Provenance } from '../workflows/provenance.js';

/** The shapes of spec 2.4 and 4.2 as the deployments service returns them. */

export const DEPLOYMENT_STATUSES = ['active', 'inactive'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const USAGE_PERIODS = ['day', 'week', 'month'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

export const DESCRIPTION_MAX = TEXT_LIMITS.description;
/** Bounds the work one request can cause (names, catalog size); far above any real bundle. */
export const WORKFLOWS_MAX = 100;

/**
 * A bundled workflow as Prisma names it: the workflow's columns, its link to the deployment (with
 * the deployment's owner) and that owner's library entry of it (none, or one). The selection of
 * the DeploymentWorkflow type; the bundle statements (src/deployments/bundle.ts) return it, flattened.
 */
export const DEPLOYMENT_WORKFLOW_SELECT = {
  id: true,
  ownerId: true,
  name: true,
  description: true,
  visibility: true,
  currentVersion: true,
  updatedAt: true,
  subscribersCount: true,
  forksCount: true,
  ratingSum: true,
  ratingCount: true,
  moderationState: true,
  moderationReason: true,
  teamId: true,
  deployments: { select: { deployment: { select: { ownerId: true, teamId: true } } } },
  libraryEntries: { select: { sourceType: true, isActive: true, enabledAdapters: true, workflowVersion: true } },
} as const satisfies Prisma.WorkflowSelect;

export type DeploymentWorkflowRow = Prisma.WorkflowGetPayload<{ select: typeof DEPLOYMENT_WORKFLOW_SELECT }>;

export interface DeploymentUsageSummary {
  connectionsThisMonth: number;
  lastConnectedAt: string | null;
}

/** What a deployment's usage summary is read from: its id and last connection (a Deployment row). */
export interface UsageSubject {
  id: string;
  lastConnectedAt: Date | null;
}

export interface CreateDeploymentInput {
  name: string;
  description?: string | null;
  workflowIds: string[];
  enabledAdapters?: string[] | null;
  allowAnonymous?: boolean | null;
  /** A team of the viewer's (they must be its owner or admin): the deployment is the team's. */
  teamId?: string | null;
}

/** Every field optional; `description: null` removes the description. */
export interface UpdateDeploymentInput {
  deploymentId: string;
  name?: string | null;
  description?: string | null;
  workflowIds?: string[] | null;
  enabledAdapters?: string[] | null;
  allowAnonymous?: boolean | null;
  /** A string moves the deployment into that team, null moves it out (docs/teams.md, "Team deployments"). */
  teamId?: string | null;
}

export interface ListDeploymentsInput {
  /** The team whose deployments to list; without it, the viewer's personal ones. */
  teamId?: string | null;
  status?: DeploymentStatus | null;
  limit?: number | null;
  cursor?: string | null;
}

export interface UsageReport {
  deploymentId: string;
  period: UsagePeriod;
  /** First and last UTC day the report covers (YYYY-MM-DD). */
  from: string;
  to: string;
  connections: { total: number; limit: number; remaining: number };
  byAdapter: Record<Adapter, number>;
  byDay: { date: string; count: number }[];
  /** A team's deployment: the period's connections per current member of the team (empty for a personal one). */
  byMember: { userId: string; count: number }[];
  /** The period's connections per MCP client (`clientInfo.name`; null when the counting request named none). */
  byClient: { client: string | null; count: number }[];
}

/** A workflow the tool endpoint offers, with its manifest at the version in use (what the renderers take). */
export interface EndpointWorkflow {
  workflowId: string;
  name: string;
  description: string;
  version: string;
  manifest: WorkflowManifest;
  /** Who wrote it and which content it is, shown with every rendering of it. */
  provenance: Provenance;
}
