/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Adapter =
  | 'adapter_one'
  | 'adapter_three'
  | 'adapter_two';

/** What a personal API key opens: `mcp` tool endpoints only; `api` REST, GraphQL and tool endpoints. */
export type ApiKeyScope =
  | 'api'
  | 'mcp';

/** What can be bought; each maps to a Stripe price by configuration. */
export type BillingPrice =
  | 'pro_annual'
  | 'pro_monthly'
  | 'team_annual'
  | 'team_monthly';

/** block: the workflow cannot be public with it. warn: it may, and subscribers see the warning. */
export type CheckSeverity =
  | 'block'
  | 'warn';

/** passed: no findings. warnings: only warnings (publishable; shown to subscribers). blocked: at least one blocking finding (cannot be public). unchecked: recorded before the check existed. */
export type CheckStatus =
  | 'blocked'
  | 'passed'
  | 'unchecked'
  | 'warnings';

export type DeploymentStatus =
  | 'active'
  | 'inactive';

/** `oauth`: sign in with this service; `api_key`: the form carries an API key; `none`: an anonymous deployment needs nothing. */
export type InstallAuth =
  | 'api_key'
  | 'none'
  | 'oauth';

export type InstallFormKind =
  | 'command'
  | 'deeplink'
  | 'file'
  | 'steps';

/** How a workflow came into a library: created by the user, forked by the user, or subscribed to from the marketplace. */
export type LibrarySourceType =
  | 'forked'
  | 'owned'
  | 'subscribed';

/** popular: subscribers + 2 × forks. recent: when the workflow was (last) published. rating: Bayesian average (10 × 3.5 + sum of ratings) / (10 + number of ratings). Ties: the id. */
export type MarketplaceSort =
  | 'popular'
  | 'rating'
  | 'recent';

/** unlist, suspend, reinstate (listed again) or dismiss (close the open reports, change nothing). */
export type ModerationActionKind =
  | 'dismiss'
  | 'reinstate'
  | 'suspend'
  | 'unlist';

/** listed: as its author published it. unlisted: out of browse, search and featured, still served to its subscribers. suspended: served in no deployment. */
export type ModerationState =
  | 'listed'
  | 'suspended'
  | 'unlisted';

/** How a way in proves who you are: an e-mail link, GitHub, or an OpenID provider (or the development issuer). */
export type SignInMethodKind =
  | 'email'
  | 'github'
  | 'oidc';

/** A role in a team: `owner` (everything, billing included), `admin` (manages members), `member` (uses the team). */
export type TeamRole =
  | 'admin'
  | 'member'
  | 'owner';

/** Who may see a workflow: everyone (listed in the marketplace) or only its owner. */
export type Visibility =
  | 'private'
  | 'public';

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { me: { userId: string, email: string | null, plan: string, isOperator: boolean } };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: { data: Array<{ keyId: string, name: string, scope: ApiKeyScope, deploymentIds: Array<string>, prefix: string, createdAt: string, lastUsedAt: string | null, expiresAt: string | null }> }, deployments: { data: Array<{ deploymentId: string, name: string }> } };

export type CreateApiKeyMutationVariables = Exact<{
  name: string;
  scope?: string | null | undefined;
  expiresAt?: string | null | undefined;
}>;


export type CreateApiKeyMutation = { createApiKey: { keyId: string, name: string, secret: string } };

export type RevokeApiKeyMutationVariables = Exact<{
  keyId: string;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { keyId: string, deleted: boolean } };

export type TeamAuditLogQueryVariables = Exact<{
  teamId: string;
  cursor?: string | null | undefined;
  action?: string | null | undefined;
  actorUserId?: string | null | undefined;
  targetType?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
}>;


export type TeamAuditLogQuery = { teamAuditLog: { data: Array<{ entryId: string, action: string, actorUserId: string | null, targetType: string, targetId: string, details: unknown, at: string }>, pagination: { hasMore: boolean, nextCursor: string | null } } };

export type MyAuditLogQueryVariables = Exact<{
  cursor?: string | null | undefined;
  action?: string | null | undefined;
  targetType?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
}>;


export type MyAuditLogQuery = { myAuditLog: { data: Array<{ entryId: string, action: string, actorUserId: string | null, targetType: string, targetId: string, details: unknown, at: string }>, pagination: { hasMore: boolean, nextCursor: string | null } } };

export type TeamAuditLogCsvQueryVariables = Exact<{
  teamId: string;
  action?: string | null | undefined;
  actorUserId?: string | null | undefined;
  targetType?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
}>;


export type TeamAuditLogCsvQuery = { teamAuditLogCsv: { contentType: string, body: string } };

export type MyAuditLogCsvQueryVariables = Exact<{
  action?: string | null | undefined;
  targetType?: string | null | undefined;
  since?: string | null | undefined;
  until?: string | null | undefined;
}>;


export type MyAuditLogCsvQuery = { myAuditLogCsv: { contentType: string, body: string } };

export type ConnectedAppsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConnectedAppsQuery = { connectedApps: Array<{ connectedAppId: string, clientId: string, clientName: string, deploymentIds: Array<string>, connectedAt: string, expiresAt: string | null }>, deployments: { data: Array<{ deploymentId: string, name: string }> } };

export type DisconnectAppMutationVariables = Exact<{
  connectedAppId: string;
}>;


export type DisconnectAppMutation = { disconnectApp: { connectedAppId: string, deleted: boolean } };

export type SetDisplayNameMutationVariables = Exact<{
  displayName: string;
}>;


export type SetDisplayNameMutation = { setDisplayName: { displayName: string | null } };

export type CreateIdeKeyMutationVariables = Exact<{
  deploymentId: string;
}>;


export type CreateIdeKeyMutation = { createDeploymentInstallKey: { apiKey: { keyId: string, name: string, prefix: string, secret: string } } };

export type ReportWorkflowMutationVariables = Exact<{
  workflowId: string;
  reason: string;
}>;


export type ReportWorkflowMutation = { reportWorkflow: { reportId: string } };

export type SignInMethodsQueryVariables = Exact<{ [key: string]: never; }>;


export type SignInMethodsQuery = { signInMethodsToAdd: Array<SignInMethodKind>, signInMethods: Array<{ id: string, method: SignInMethodKind, label: string | null, email: string | null, createdAt: string }> };

export type RemoveSignInMethodMutationVariables = Exact<{
  id: string | number;
}>;


export type RemoveSignInMethodMutation = { removeSignInMethod: { deleted: boolean } };

export type WorkflowVersionsQueryVariables = Exact<{
  workflowId: string;
}>;


export type WorkflowVersionsQuery = { workflowVersions: { data: Array<{ version: string, name: string, digest: string, createdAt: string }> } };

export type ComparedVersionsQueryVariables = Exact<{
  workflowId: string;
  from: string;
  to: string;
}>;


export type ComparedVersionsQuery = { from: { manifest: unknown, manifestSource: { format: string, text: string } }, to: { manifest: unknown, manifestSource: { format: string, text: string } } };

export type AccountQueryVariables = Exact<{ [key: string]: never; }>;


export type AccountQuery = { billingPrices: Array<BillingPrice>, me: { userId: string, email: string | null, displayName: string | null, plan: string, createdAt: string, workflowCount: number, deploymentCount: number, subscriptionCount: number, limits: { requestsPerMinute: number, requestsPerHour: number }, usage: { workflows: { used: number, limit: number }, deployments: { used: number, limit: number }, subscriptions: { used: number, limit: number }, connections: { used: number, limit: number }, apiKeys: { used: number, limit: number } }, billing: { status: string, currentPeriodEnd: string | null, cancelAtPeriodEnd: boolean, customerId: string | null } } };

export type CheckoutMutationVariables = Exact<{
  priceId: BillingPrice;
  successUrl: string;
  cancelUrl: string;
}>;


export type CheckoutMutation = { createCheckoutSession: { checkoutUrl: string } };

export type BillingPortalMutationVariables = Exact<{
  returnUrl?: string | null | undefined;
}>;


export type BillingPortalMutation = { createBillingPortalSession: { portalUrl: string } };

export type DeleteAccountMutationVariables = Exact<{ [key: string]: never; }>;


export type DeleteAccountMutation = { deleteMe: { deleted: boolean } };

export type AdminReportsQueryVariables = Exact<{ [key: string]: never; }>;


export type AdminReportsQuery = { moderationReports: { data: Array<{ reportId: string, reason: string, createdAt: string, reporter: { handle: string }, workflow: { workflowId: string, name: string, moderationState: ModerationState, owner: { handle: string } } }> }, moderationActions: { data: Array<{ actionId: string, workflowId: string, workflowName: string, action: ModerationActionKind, reason: string, reportsClosed: number, operatorEmail: string, at: string }> } };

export type ModerateWorkflowMutationVariables = Exact<{
  workflowId: string;
  action: ModerationActionKind;
  reason: string;
}>;


export type ModerateWorkflowMutation = { moderateWorkflow: { actionId: string } };

export type InstallFieldsFragment = { deploymentId: string, name: string, endpoint: string, allowAnonymous: boolean, apiKeyIncluded: boolean, keyBoundEndpoint: string | null, clients: Array<{ client: string, title: string, note: string | null, forms: Array<{ auth: InstallAuth, kind: InstallFormKind, label: string, url: string | null, webUrl: string | null, commands: Array<string>, steps: Array<string>, usesApiKey: boolean, file: { path: string, content: string } | null }> }> };

export type DeploymentInstallQueryVariables = Exact<{
  deploymentId: string;
}>;


export type DeploymentInstallQuery = { deploymentInstall: { deploymentId: string, name: string, endpoint: string, allowAnonymous: boolean, apiKeyIncluded: boolean, keyBoundEndpoint: string | null, clients: Array<{ client: string, title: string, note: string | null, forms: Array<{ auth: InstallAuth, kind: InstallFormKind, label: string, url: string | null, webUrl: string | null, commands: Array<string>, steps: Array<string>, usesApiKey: boolean, file: { path: string, content: string } | null }> }> } };

export type CreateDeploymentInstallKeyMutationVariables = Exact<{
  deploymentId: string;
}>;


export type CreateDeploymentInstallKeyMutation = { createDeploymentInstallKey: { apiKey: { keyId: string, name: string, prefix: string, secret: string }, install: { deploymentId: string, name: string, endpoint: string, allowAnonymous: boolean, apiKeyIncluded: boolean, keyBoundEndpoint: string | null, clients: Array<{ client: string, title: string, note: string | null, forms: Array<{ auth: InstallAuth, kind: InstallFormKind, label: string, url: string | null, webUrl: string | null, commands: Array<string>, steps: Array<string>, usesApiKey: boolean, file: { path: string, content: string } | null }> }> } } };

export type DeploymentQueryVariables = Exact<{
  deploymentId: string;
}>;


export type DeploymentQuery = { deployment: { deploymentId: string, name: string, description: string | null, status: DeploymentStatus, allowAnonymous: boolean, enabledAdapters: Array<Adapter>, mcpEndpoint: string, createdAt: string, workflows: Array<{ workflowId: string, name: string, version: string, isOwned: boolean, available: boolean, unavailableReason: string | null }> }, deploymentUsage: { from: string, to: string, connections: { total: number, limit: number, remaining: number }, adapterCounts: Array<{ adapter: Adapter, count: number }>, byDay: Array<{ date: string, count: number }> } };

export type ActivateDeploymentMutationVariables = Exact<{
  deploymentId: string;
}>;


export type ActivateDeploymentMutation = { activateDeployment: { deploymentId: string, status: DeploymentStatus } };

export type DeactivateDeploymentMutationVariables = Exact<{
  deploymentId: string;
}>;


export type DeactivateDeploymentMutation = { deactivateDeployment: { deploymentId: string, status: DeploymentStatus } };

export type SetDeploymentAdapterMutationVariables = Exact<{
  deploymentId: string;
  adapter: Adapter;
  enabled: boolean;
}>;


export type SetDeploymentAdapterMutation = { setDeploymentAdapter: { enabledAdapters: Array<Adapter> } };

export type DeleteDeploymentMutationVariables = Exact<{
  deploymentId: string;
}>;


export type DeleteDeploymentMutation = { deleteDeployment: { deleted: boolean } };

export type DeploymentsQueryVariables = Exact<{ [key: string]: never; }>;


export type DeploymentsQuery = { billingPrices: Array<BillingPrice>, deployments: { data: Array<{ deploymentId: string, name: string, status: DeploymentStatus, allowAnonymous: boolean, enabledAdapters: Array<Adapter>, createdAt: string, workflows: Array<{ workflowId: string, name: string }>, usage: { connectionsThisMonth: number, lastConnectedAt: string | null } }> }, library: { data: Array<{ workflowId: string, workflowName: string, workflowVersion: string, sourceType: LibrarySourceType }> }, me: { plan: string, usage: { deployments: { used: number, limit: number } } } };

export type CreateDeploymentMutationVariables = Exact<{
  name: string;
  workflowIds: Array<string> | string;
  enabledAdapters?: Array<Adapter> | Adapter | null | undefined;
  allowAnonymous?: boolean | null | undefined;
}>;


export type CreateDeploymentMutation = { createDeployment: { deploymentId: string } };

export type LibraryQueryVariables = Exact<{ [key: string]: never; }>;


export type LibraryQuery = { library: { data: Array<{ workflowId: string, workflowName: string, workflowVersion: string, sourceType: LibrarySourceType, isActive: boolean, autoUpdate: boolean, enabledAdapters: Array<Adapter>, addedAt: string, update: { fromVersion: string, latestVersion: string, held: boolean, check: { status: CheckStatus, summary: string, findings: Array<{ rule: string, severity: CheckSeverity, field: string, excerpt: string, message: string }> }, changes: Array<{ path: string }> } | null }> } };

export type AcceptLibraryUpdateMutationVariables = Exact<{
  workflowId: string;
  version?: string | null | undefined;
}>;


export type AcceptLibraryUpdateMutation = { acceptLibraryUpdate: { workflowId: string, workflowVersion: string } };

export type UpdateLibraryEntryMutationVariables = Exact<{
  workflowId: string;
  isActive?: boolean | null | undefined;
  enabledAdapters?: Array<Adapter> | Adapter | null | undefined;
}>;


export type UpdateLibraryEntryMutation = { updateLibraryEntry: { workflowId: string, isActive: boolean, enabledAdapters: Array<Adapter> } };

export type RemoveLibraryEntryMutationVariables = Exact<{
  workflowId: string;
}>;


export type RemoveLibraryEntryMutation = { removeFromLibrary: { workflowId: string } };

export type MarketplaceCardFragment = { workflowId: string, name: string, description: string, category: string, owner: { handle: string }, stats: { subscribers: number, forks: number, rating: number, ratingCount: number }, check: { status: CheckStatus, summary: string } };

export type MarketplaceBrowseQueryVariables = Exact<{
  sort?: MarketplaceSort | null | undefined;
}>;


export type MarketplaceBrowseQuery = { marketplaceFeatured: { data: Array<{ workflowId: string, name: string, description: string, category: string, owner: { handle: string }, stats: { subscribers: number, forks: number, rating: number, ratingCount: number }, check: { status: CheckStatus, summary: string } }> }, marketplace: { data: Array<{ workflowId: string, name: string, description: string, category: string, owner: { handle: string }, stats: { subscribers: number, forks: number, rating: number, ratingCount: number }, check: { status: CheckStatus, summary: string } }> } };

export type MarketplaceSearchQueryVariables = Exact<{
  q: string;
}>;


export type MarketplaceSearchQuery = { marketplaceSearch: { data: Array<{ workflowId: string, name: string, description: string, category: string, owner: { handle: string }, stats: { subscribers: number, forks: number, rating: number, ratingCount: number }, check: { status: CheckStatus, summary: string } }> } };

export type MarketplaceWorkflowPageQueryVariables = Exact<{
  workflowId: string;
}>;


export type MarketplaceWorkflowPageQuery = { workflow: { workflowId: string, name: string, description: string, category: string, tags: Array<string>, currentVersion: string, allowForks: boolean, manifest: unknown, viewerFork: { forkId: string | null } | null, moderation: { state: ModerationState, reason: string | null }, owner: { userId: string, handle: string }, stats: { subscribers: number, forks: number, rating: number, ratingCount: number }, check: { status: CheckStatus, summary: string, findings: Array<{ rule: string, severity: CheckSeverity, field: string, excerpt: string, message: string }> } }, workflowReviews: { data: Array<{ reviewId: string, rating: number, text: string, createdAt: string, updatedAt: string, author: { userId: string, handle: string } }> }, library: { data: Array<{ workflowId: string, sourceType: LibrarySourceType }> } };

export type SubscribeMutationVariables = Exact<{
  workflowId: string;
}>;


export type SubscribeMutation = { addToLibrary: { workflowId: string } };

export type ForkMutationVariables = Exact<{
  workflowId: string;
}>;


export type ForkMutation = { forkWorkflow: { workflowId: string } };

export type WriteReviewMutationVariables = Exact<{
  workflowId: string;
  rating: number;
  text: string;
}>;


export type WriteReviewMutation = { createReview: { reviewId: string } };

export type EditReviewMutationVariables = Exact<{
  workflowId: string;
  reviewId: string;
  rating: number;
  text: string;
}>;


export type EditReviewMutation = { updateReview: { reviewId: string } };

export type DeleteReviewMutationVariables = Exact<{
  workflowId: string;
  reviewId: string;
}>;


export type DeleteReviewMutation = { deleteReview: { deleted: boolean } };

export type UnsubscribeMutationVariables = Exact<{
  workflowId: string;
}>;


export type UnsubscribeMutation = { removeFromLibrary: { workflowId: string } };

export type TeamPageQueryVariables = Exact<{
  teamId: string;
}>;


export type TeamPageQuery = { team: { teamId: string, name: string, role: TeamRole, billingOwnerId: string, createdAt: string }, teamMembers: { data: Array<{ userId: string, email: string | null, displayName: string | null, role: TeamRole, joinedAt: string }> } };

export type TeamInvitationsQueryVariables = Exact<{
  teamId: string;
}>;


export type TeamInvitationsQuery = { teamInvitations: { data: Array<{ invitationId: string, email: string, role: TeamRole, createdAt: string, expiresAt: string }> } };

export type InviteTeamMemberMutationVariables = Exact<{
  teamId: string;
  email: string;
  role: string;
}>;


export type InviteTeamMemberMutation = { inviteTeamMember: { email: string, emailSent: boolean, acceptUrl: string | null } };

export type RevokeTeamInvitationMutationVariables = Exact<{
  teamId: string;
  invitationId: string;
}>;


export type RevokeTeamInvitationMutation = { revokeTeamInvitation: { deleted: boolean } };

export type UpdateTeamMemberMutationVariables = Exact<{
  teamId: string;
  userId: string;
  role: string;
}>;


export type UpdateTeamMemberMutation = { updateTeamMember: { role: TeamRole } };

export type RemoveTeamMemberMutationVariables = Exact<{
  teamId: string;
  userId: string;
}>;


export type RemoveTeamMemberMutation = { removeTeamMember: { deleted: boolean } };

export type SetTeamBillingOwnerMutationVariables = Exact<{
  teamId: string;
  userId: string;
}>;


export type SetTeamBillingOwnerMutation = { setTeamBillingOwner: { billingOwnerId: string } };

export type TeamsQueryVariables = Exact<{ [key: string]: never; }>;


export type TeamsQuery = { teams: { data: Array<{ teamId: string, name: string, role: TeamRole, createdAt: string }> } };

export type CreateTeamMutationVariables = Exact<{
  name: string;
}>;


export type CreateTeamMutation = { createTeam: { teamId: string } };

export type EditWorkflowQueryVariables = Exact<{
  workflowId: string;
}>;


export type EditWorkflowQuery = { workflow: { workflowId: string, name: string, description: string, category: string, tags: Array<string>, visibility: Visibility, allowForks: boolean, currentVersion: string, revision: number, digest: string, moderation: { state: ModerationState, reason: string | null }, forkedFrom: { workflowId: string } | null, manifestSource: { format: string, text: string } } };

export type CreateWorkflowMutationVariables = Exact<{
  name: string;
  description?: string | null | undefined;
  category?: string | null | undefined;
  tags?: Array<string> | string | null | undefined;
  visibility?: Visibility | null | undefined;
  manifest: unknown;
}>;


export type CreateWorkflowMutation = { createWorkflow: { workflowId: string } };

export type UpdateWorkflowMutationVariables = Exact<{
  workflowId: string;
  name: string;
  description?: string | null | undefined;
  category?: string | null | undefined;
  tags?: Array<string> | string | null | undefined;
  visibility?: Visibility | null | undefined;
  manifest: unknown;
  expectedRevision?: number | null | undefined;
}>;


export type UpdateWorkflowMutation = { updateWorkflow: { workflowId: string, currentVersion: string, revision: number } };

export type DeleteWorkflowMutationVariables = Exact<{
  workflowId: string;
}>;


export type DeleteWorkflowMutation = { deleteWorkflow: { deleted: boolean } };

export type OwnPublicNameQueryVariables = Exact<{ [key: string]: never; }>;


export type OwnPublicNameQuery = { me: { displayName: string | null } };

export type DeploymentsUsingQueryVariables = Exact<{ [key: string]: never; }>;


export type DeploymentsUsingQuery = { deployments: { data: Array<{ deploymentId: string, name: string, workflows: Array<{ workflowId: string }> }> } };

export type ManifestDocumentQueryVariables = Exact<{
  workflowId: string;
  format?: string | null | undefined;
}>;


export type ManifestDocumentQuery = { workflowManifest: { body: string, contentType: string } };

export type WorkflowsQueryVariables = Exact<{ [key: string]: never; }>;


export type WorkflowsQuery = { workflows: { data: Array<{ workflowId: string, name: string, description: string, visibility: Visibility, currentVersion: string, updatedAt: string, stats: { subscribers: number, forks: number, rating: number, ratingCount: number } }> } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const InstallFieldsFragmentDoc = new TypedDocumentString(`
    fragment InstallFields on DeploymentInstall {
  deploymentId
  name
  endpoint
  allowAnonymous
  apiKeyIncluded
  keyBoundEndpoint
  clients {
    client
    title
    note
    forms {
      auth
      kind
      label
      url
      webUrl
      commands
      steps
      file {
        path
        content
      }
      usesApiKey
    }
  }
}
    `, {"fragmentName":"InstallFields"}) as unknown as TypedDocumentString<InstallFieldsFragment, unknown>;
export const MarketplaceCardFragmentDoc = new TypedDocumentString(`
    fragment MarketplaceCard on MarketplaceWorkflow {
  workflowId
  name
  description
  category
  owner {
    handle
  }
  stats {
    subscribers
    forks
    rating
    ratingCount
  }
  check {
    status
    summary
  }
}
    `, {"fragmentName":"MarketplaceCard"}) as unknown as TypedDocumentString<MarketplaceCardFragment, unknown>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  me {
    userId
    email
    plan
    isOperator
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys {
  apiKeys(limit: 100) {
    data {
      keyId
      name
      scope
      deploymentIds
      prefix
      createdAt
      lastUsedAt
      expiresAt
    }
  }
  deployments(limit: 100) {
    data {
      deploymentId
      name
    }
  }
}
    `) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($name: String!, $scope: String, $expiresAt: String) {
  createApiKey(name: $name, scope: $scope, expiresAt: $expiresAt) {
    keyId
    name
    secret
  }
}
    `) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($keyId: String!) {
  revokeApiKey(keyId: $keyId) {
    keyId
    deleted
  }
}
    `) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const TeamAuditLogDocument = new TypedDocumentString(`
    query TeamAuditLog($teamId: String!, $cursor: String, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {
  teamAuditLog(
    teamId: $teamId
    limit: 50
    cursor: $cursor
    action: $action
    actorUserId: $actorUserId
    targetType: $targetType
    since: $since
    until: $until
  ) {
    data {
      entryId
      action
      actorUserId
      targetType
      targetId
      details
      at
    }
    pagination {
      hasMore
      nextCursor
    }
  }
}
    `) as unknown as TypedDocumentString<TeamAuditLogQuery, TeamAuditLogQueryVariables>;
export const MyAuditLogDocument = new TypedDocumentString(`
    query MyAuditLog($cursor: String, $action: String, $targetType: String, $since: String, $until: String) {
  myAuditLog(
    limit: 50
    cursor: $cursor
    action: $action
    targetType: $targetType
    since: $since
    until: $until
  ) {
    data {
      entryId
      action
      actorUserId
      targetType
      targetId
      details
      at
    }
    pagination {
      hasMore
      nextCursor
    }
  }
}
    `) as unknown as TypedDocumentString<MyAuditLogQuery, MyAuditLogQueryVariables>;
export const TeamAuditLogCsvDocument = new TypedDocumentString(`
    query TeamAuditLogCsv($teamId: String!, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {
  teamAuditLogCsv(
    teamId: $teamId
    action: $action
    actorUserId: $actorUserId
    targetType: $targetType
    since: $since
    until: $until
  ) {
    contentType
    body
  }
}
    `) as unknown as TypedDocumentString<TeamAuditLogCsvQuery, TeamAuditLogCsvQueryVariables>;
export const MyAuditLogCsvDocument = new TypedDocumentString(`
    query MyAuditLogCsv($action: String, $targetType: String, $since: String, $until: String) {
  myAuditLogCsv(
    action: $action
    targetType: $targetType
    since: $since
    until: $until
  ) {
    contentType
    body
  }
}
    `) as unknown as TypedDocumentString<MyAuditLogCsvQuery, MyAuditLogCsvQueryVariables>;
export const ConnectedAppsDocument = new TypedDocumentString(`
    query ConnectedApps {
  connectedApps {
    connectedAppId
    clientId
    clientName
    deploymentIds
    connectedAt
    expiresAt
  }
  deployments(limit: 100) {
    data {
      deploymentId
      name
    }
  }
}
    `) as unknown as TypedDocumentString<ConnectedAppsQuery, ConnectedAppsQueryVariables>;
export const DisconnectAppDocument = new TypedDocumentString(`
    mutation DisconnectApp($connectedAppId: String!) {
  disconnectApp(connectedAppId: $connectedAppId) {
    connectedAppId
    deleted
  }
}
    `) as unknown as TypedDocumentString<DisconnectAppMutation, DisconnectAppMutationVariables>;
export const SetDisplayNameDocument = new TypedDocumentString(`
    mutation SetDisplayName($displayName: String!) {
  setDisplayName(displayName: $displayName) {
    displayName
  }
}
    `) as unknown as TypedDocumentString<SetDisplayNameMutation, SetDisplayNameMutationVariables>;
export const CreateIdeKeyDocument = new TypedDocumentString(`
    mutation CreateIdeKey($deploymentId: String!) {
  createDeploymentInstallKey(deploymentId: $deploymentId, madeBy: "IDE setup") {
    apiKey {
      keyId
      name
      prefix
      secret
    }
  }
}
    `) as unknown as TypedDocumentString<CreateIdeKeyMutation, CreateIdeKeyMutationVariables>;
export const ReportWorkflowDocument = new TypedDocumentString(`
    mutation ReportWorkflow($workflowId: String!, $reason: String!) {
  reportWorkflow(workflowId: $workflowId, reason: $reason) {
    reportId
  }
}
    `) as unknown as TypedDocumentString<ReportWorkflowMutation, ReportWorkflowMutationVariables>;
export const SignInMethodsDocument = new TypedDocumentString(`
    query SignInMethods {
  signInMethods {
    id
    method
    label
    email
    createdAt
  }
  signInMethodsToAdd
}
    `) as unknown as TypedDocumentString<SignInMethodsQuery, SignInMethodsQueryVariables>;
export const RemoveSignInMethodDocument = new TypedDocumentString(`
    mutation RemoveSignInMethod($id: ID!) {
  removeSignInMethod(id: $id) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<RemoveSignInMethodMutation, RemoveSignInMethodMutationVariables>;
export const WorkflowVersionsDocument = new TypedDocumentString(`
    query WorkflowVersions($workflowId: String!) {
  workflowVersions(workflowId: $workflowId, limit: 100) {
    data {
      version
      name
      digest
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<WorkflowVersionsQuery, WorkflowVersionsQueryVariables>;
export const ComparedVersionsDocument = new TypedDocumentString(`
    query ComparedVersions($workflowId: String!, $from: String!, $to: String!) {
  from: workflowVersion(workflowId: $workflowId, version: $from) {
    manifest
    manifestSource {
      format
      text
    }
  }
  to: workflowVersion(workflowId: $workflowId, version: $to) {
    manifest
    manifestSource {
      format
      text
    }
  }
}
    `) as unknown as TypedDocumentString<ComparedVersionsQuery, ComparedVersionsQueryVariables>;
export const AccountDocument = new TypedDocumentString(`
    query Account {
  me {
    userId
    email
    displayName
    plan
    createdAt
    workflowCount
    deploymentCount
    subscriptionCount
    limits {
      requestsPerMinute
      requestsPerHour
    }
    usage {
      workflows {
        used
        limit
      }
      deployments {
        used
        limit
      }
      subscriptions {
        used
        limit
      }
      connections {
        used
        limit
      }
      apiKeys {
        used
        limit
      }
    }
    billing {
      status
      currentPeriodEnd
      cancelAtPeriodEnd
      customerId
    }
  }
  billingPrices
}
    `) as unknown as TypedDocumentString<AccountQuery, AccountQueryVariables>;
export const CheckoutDocument = new TypedDocumentString(`
    mutation Checkout($priceId: BillingPrice!, $successUrl: String!, $cancelUrl: String!) {
  createCheckoutSession(
    priceId: $priceId
    successUrl: $successUrl
    cancelUrl: $cancelUrl
  ) {
    checkoutUrl
  }
}
    `) as unknown as TypedDocumentString<CheckoutMutation, CheckoutMutationVariables>;
export const BillingPortalDocument = new TypedDocumentString(`
    mutation BillingPortal($returnUrl: String) {
  createBillingPortalSession(returnUrl: $returnUrl) {
    portalUrl
  }
}
    `) as unknown as TypedDocumentString<BillingPortalMutation, BillingPortalMutationVariables>;
export const DeleteAccountDocument = new TypedDocumentString(`
    mutation DeleteAccount {
  deleteMe {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteAccountMutation, DeleteAccountMutationVariables>;
export const AdminReportsDocument = new TypedDocumentString(`
    query AdminReports {
  moderationReports(limit: 100) {
    data {
      reportId
      reason
      createdAt
      reporter {
        handle
      }
      workflow {
        workflowId
        name
        moderationState
        owner {
          handle
        }
      }
    }
  }
  moderationActions(limit: 50) {
    data {
      actionId
      workflowId
      workflowName
      action
      reason
      reportsClosed
      operatorEmail
      at
    }
  }
}
    `) as unknown as TypedDocumentString<AdminReportsQuery, AdminReportsQueryVariables>;
export const ModerateWorkflowDocument = new TypedDocumentString(`
    mutation ModerateWorkflow($workflowId: String!, $action: ModerationActionKind!, $reason: String!) {
  moderateWorkflow(workflowId: $workflowId, action: $action, reason: $reason) {
    actionId
  }
}
    `) as unknown as TypedDocumentString<ModerateWorkflowMutation, ModerateWorkflowMutationVariables>;
export const DeploymentInstallDocument = new TypedDocumentString(`
    query DeploymentInstall($deploymentId: String!) {
  deploymentInstall(deploymentId: $deploymentId) {
    ...InstallFields
  }
}
    fragment InstallFields on DeploymentInstall {
  deploymentId
  name
  endpoint
  allowAnonymous
  apiKeyIncluded
  keyBoundEndpoint
  clients {
    client
    title
    note
    forms {
      auth
      kind
      label
      url
      webUrl
      commands
      steps
      file {
        path
        content
      }
      usesApiKey
    }
  }
}`) as unknown as TypedDocumentString<DeploymentInstallQuery, DeploymentInstallQueryVariables>;
export const CreateDeploymentInstallKeyDocument = new TypedDocumentString(`
    mutation CreateDeploymentInstallKey($deploymentId: String!) {
  createDeploymentInstallKey(deploymentId: $deploymentId) {
    apiKey {
      keyId
      name
      prefix
      secret
    }
    install {
      ...InstallFields
    }
  }
}
    fragment InstallFields on DeploymentInstall {
  deploymentId
  name
  endpoint
  allowAnonymous
  apiKeyIncluded
  keyBoundEndpoint
  clients {
    client
    title
    note
    forms {
      auth
      kind
      label
      url
      webUrl
      commands
      steps
      file {
        path
        content
      }
      usesApiKey
    }
  }
}`) as unknown as TypedDocumentString<CreateDeploymentInstallKeyMutation, CreateDeploymentInstallKeyMutationVariables>;
export const DeploymentDocument = new TypedDocumentString(`
    query Deployment($deploymentId: String!) {
  deployment(deploymentId: $deploymentId) {
    deploymentId
    name
    description
    status
    allowAnonymous
    enabledAdapters
    mcpEndpoint
    createdAt
    workflows {
      workflowId
      name
      version
      isOwned
      available
      unavailableReason
    }
  }
  deploymentUsage(deploymentId: $deploymentId, period: month) {
    from
    to
    connections {
      total
      limit
      remaining
    }
    adapterCounts {
      adapter
      count
    }
    byDay {
      date
      count
    }
  }
}
    `) as unknown as TypedDocumentString<DeploymentQuery, DeploymentQueryVariables>;
export const ActivateDeploymentDocument = new TypedDocumentString(`
    mutation ActivateDeployment($deploymentId: String!) {
  activateDeployment(deploymentId: $deploymentId) {
    deploymentId
    status
  }
}
    `) as unknown as TypedDocumentString<ActivateDeploymentMutation, ActivateDeploymentMutationVariables>;
export const DeactivateDeploymentDocument = new TypedDocumentString(`
    mutation DeactivateDeployment($deploymentId: String!) {
  deactivateDeployment(deploymentId: $deploymentId) {
    deploymentId
    status
  }
}
    `) as unknown as TypedDocumentString<DeactivateDeploymentMutation, DeactivateDeploymentMutationVariables>;
export const SetDeploymentAdapterDocument = new TypedDocumentString(`
    mutation SetDeploymentAdapter($deploymentId: String!, $adapter: Adapter!, $enabled: Boolean!) {
  setDeploymentAdapter(
    deploymentId: $deploymentId
    adapter: $adapter
    enabled: $enabled
  ) {
    enabledAdapters
  }
}
    `) as unknown as TypedDocumentString<SetDeploymentAdapterMutation, SetDeploymentAdapterMutationVariables>;
export const DeleteDeploymentDocument = new TypedDocumentString(`
    mutation DeleteDeployment($deploymentId: String!) {
  deleteDeployment(deploymentId: $deploymentId) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteDeploymentMutation, DeleteDeploymentMutationVariables>;
export const DeploymentsDocument = new TypedDocumentString(`
    query Deployments {
  deployments(limit: 50) {
    data {
      deploymentId
      name
      status
      allowAnonymous
      enabledAdapters
      createdAt
      workflows {
        workflowId
        name
      }
      usage {
        connectionsThisMonth
        lastConnectedAt
      }
    }
  }
  library(activeOnly: true, limit: 100) {
    data {
      workflowId
      workflowName
      workflowVersion
      sourceType
    }
  }
  me {
    plan
    usage {
      deployments {
        used
        limit
      }
    }
  }
  billingPrices
}
    `) as unknown as TypedDocumentString<DeploymentsQuery, DeploymentsQueryVariables>;
export const CreateDeploymentDocument = new TypedDocumentString(`
    mutation CreateDeployment($name: String!, $workflowIds: [String!]!, $enabledAdapters: [Adapter!], $allowAnonymous: Boolean) {
  createDeployment(
    name: $name
    workflowIds: $workflowIds
    enabledAdapters: $enabledAdapters
    allowAnonymous: $allowAnonymous
  ) {
    deploymentId
  }
}
    `) as unknown as TypedDocumentString<CreateDeploymentMutation, CreateDeploymentMutationVariables>;
export const LibraryDocument = new TypedDocumentString(`
    query Library {
  library(limit: 100) {
    data {
      workflowId
      workflowName
      workflowVersion
      sourceType
      isActive
      autoUpdate
      enabledAdapters
      addedAt
      update {
        fromVersion
        latestVersion
        held
        check {
          status
          summary
          findings {
            rule
            severity
            field
            excerpt
            message
          }
        }
        changes {
          path
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<LibraryQuery, LibraryQueryVariables>;
export const AcceptLibraryUpdateDocument = new TypedDocumentString(`
    mutation AcceptLibraryUpdate($workflowId: String!, $version: String) {
  acceptLibraryUpdate(workflowId: $workflowId, version: $version) {
    workflowId
    workflowVersion
  }
}
    `) as unknown as TypedDocumentString<AcceptLibraryUpdateMutation, AcceptLibraryUpdateMutationVariables>;
export const UpdateLibraryEntryDocument = new TypedDocumentString(`
    mutation UpdateLibraryEntry($workflowId: String!, $isActive: Boolean, $enabledAdapters: [Adapter!]) {
  updateLibraryEntry(
    workflowId: $workflowId
    isActive: $isActive
    enabledAdapters: $enabledAdapters
  ) {
    workflowId
    isActive
    enabledAdapters
  }
}
    `) as unknown as TypedDocumentString<UpdateLibraryEntryMutation, UpdateLibraryEntryMutationVariables>;
export const RemoveLibraryEntryDocument = new TypedDocumentString(`
    mutation RemoveLibraryEntry($workflowId: String!) {
  removeFromLibrary(workflowId: $workflowId) {
    workflowId
  }
}
    `) as unknown as TypedDocumentString<RemoveLibraryEntryMutation, RemoveLibraryEntryMutationVariables>;
export const MarketplaceBrowseDocument = new TypedDocumentString(`
    query MarketplaceBrowse($sort: MarketplaceSort) {
  marketplaceFeatured {
    data {
      ...MarketplaceCard
    }
  }
  marketplace(sort: $sort, limit: 30) {
    data {
      ...MarketplaceCard
    }
  }
}
    fragment MarketplaceCard on MarketplaceWorkflow {
  workflowId
  name
  description
  category
  owner {
    handle
  }
  stats {
    subscribers
    forks
    rating
    ratingCount
  }
  check {
    status
    summary
  }
}`) as unknown as TypedDocumentString<MarketplaceBrowseQuery, MarketplaceBrowseQueryVariables>;
export const MarketplaceSearchDocument = new TypedDocumentString(`
    query MarketplaceSearch($q: String!) {
  marketplaceSearch(q: $q, limit: 30) {
    data {
      ...MarketplaceCard
    }
  }
}
    fragment MarketplaceCard on MarketplaceWorkflow {
  workflowId
  name
  description
  category
  owner {
    handle
  }
  stats {
    subscribers
    forks
    rating
    ratingCount
  }
  check {
    status
    summary
  }
}`) as unknown as TypedDocumentString<MarketplaceSearchQuery, MarketplaceSearchQueryVariables>;
export const MarketplaceWorkflowPageDocument = new TypedDocumentString(`
    query MarketplaceWorkflowPage($workflowId: String!) {
  workflow(workflowId: $workflowId) {
    workflowId
    name
    description
    category
    tags
    currentVersion
    allowForks
    viewerFork {
      forkId
    }
    manifest
    moderation {
      state
      reason
    }
    owner {
      userId
      handle
    }
    stats {
      subscribers
      forks
      rating
      ratingCount
    }
    check {
      status
      summary
      findings {
        rule
        severity
        field
        excerpt
        message
      }
    }
  }
  workflowReviews(workflowId: $workflowId, limit: 50) {
    data {
      reviewId
      rating
      text
      createdAt
      updatedAt
      author {
        userId
        handle
      }
    }
  }
  library(limit: 100) {
    data {
      workflowId
      sourceType
    }
  }
}
    `) as unknown as TypedDocumentString<MarketplaceWorkflowPageQuery, MarketplaceWorkflowPageQueryVariables>;
export const SubscribeDocument = new TypedDocumentString(`
    mutation Subscribe($workflowId: String!) {
  addToLibrary(workflowId: $workflowId) {
    workflowId
  }
}
    `) as unknown as TypedDocumentString<SubscribeMutation, SubscribeMutationVariables>;
export const ForkDocument = new TypedDocumentString(`
    mutation Fork($workflowId: String!) {
  forkWorkflow(workflowId: $workflowId) {
    workflowId
  }
}
    `) as unknown as TypedDocumentString<ForkMutation, ForkMutationVariables>;
export const WriteReviewDocument = new TypedDocumentString(`
    mutation WriteReview($workflowId: String!, $rating: Int!, $text: String!) {
  createReview(workflowId: $workflowId, rating: $rating, text: $text) {
    reviewId
  }
}
    `) as unknown as TypedDocumentString<WriteReviewMutation, WriteReviewMutationVariables>;
export const EditReviewDocument = new TypedDocumentString(`
    mutation EditReview($workflowId: String!, $reviewId: String!, $rating: Int!, $text: String!) {
  updateReview(
    workflowId: $workflowId
    reviewId: $reviewId
    rating: $rating
    text: $text
  ) {
    reviewId
  }
}
    `) as unknown as TypedDocumentString<EditReviewMutation, EditReviewMutationVariables>;
export const DeleteReviewDocument = new TypedDocumentString(`
    mutation DeleteReview($workflowId: String!, $reviewId: String!) {
  deleteReview(workflowId: $workflowId, reviewId: $reviewId) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteReviewMutation, DeleteReviewMutationVariables>;
export const UnsubscribeDocument = new TypedDocumentString(`
    mutation Unsubscribe($workflowId: String!) {
  removeFromLibrary(workflowId: $workflowId) {
    workflowId
  }
}
    `) as unknown as TypedDocumentString<UnsubscribeMutation, UnsubscribeMutationVariables>;
export const TeamPageDocument = new TypedDocumentString(`
    query TeamPage($teamId: String!) {
  team(teamId: $teamId) {
    teamId
    name
    role
    billingOwnerId
    createdAt
  }
  teamMembers(teamId: $teamId, limit: 100) {
    data {
      userId
      email
      displayName
      role
      joinedAt
    }
  }
}
    `) as unknown as TypedDocumentString<TeamPageQuery, TeamPageQueryVariables>;
export const TeamInvitationsDocument = new TypedDocumentString(`
    query TeamInvitations($teamId: String!) {
  teamInvitations(teamId: $teamId, limit: 100) {
    data {
      invitationId
      email
      role
      createdAt
      expiresAt
    }
  }
}
    `) as unknown as TypedDocumentString<TeamInvitationsQuery, TeamInvitationsQueryVariables>;
export const InviteTeamMemberDocument = new TypedDocumentString(`
    mutation InviteTeamMember($teamId: String!, $email: String!, $role: String!) {
  inviteTeamMember(teamId: $teamId, email: $email, role: $role) {
    email
    emailSent
    acceptUrl
  }
}
    `) as unknown as TypedDocumentString<InviteTeamMemberMutation, InviteTeamMemberMutationVariables>;
export const RevokeTeamInvitationDocument = new TypedDocumentString(`
    mutation RevokeTeamInvitation($teamId: String!, $invitationId: String!) {
  revokeTeamInvitation(teamId: $teamId, invitationId: $invitationId) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<RevokeTeamInvitationMutation, RevokeTeamInvitationMutationVariables>;
export const UpdateTeamMemberDocument = new TypedDocumentString(`
    mutation UpdateTeamMember($teamId: String!, $userId: String!, $role: String!) {
  updateTeamMember(teamId: $teamId, userId: $userId, role: $role) {
    role
  }
}
    `) as unknown as TypedDocumentString<UpdateTeamMemberMutation, UpdateTeamMemberMutationVariables>;
export const RemoveTeamMemberDocument = new TypedDocumentString(`
    mutation RemoveTeamMember($teamId: String!, $userId: String!) {
  removeTeamMember(teamId: $teamId, userId: $userId) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<RemoveTeamMemberMutation, RemoveTeamMemberMutationVariables>;
export const SetTeamBillingOwnerDocument = new TypedDocumentString(`
    mutation SetTeamBillingOwner($teamId: String!, $userId: String!) {
  setTeamBillingOwner(teamId: $teamId, userId: $userId) {
    billingOwnerId
  }
}
    `) as unknown as TypedDocumentString<SetTeamBillingOwnerMutation, SetTeamBillingOwnerMutationVariables>;
export const TeamsDocument = new TypedDocumentString(`
    query Teams {
  teams(limit: 100) {
    data {
      teamId
      name
      role
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<TeamsQuery, TeamsQueryVariables>;
export const CreateTeamDocument = new TypedDocumentString(`
    mutation CreateTeam($name: String!) {
  createTeam(name: $name) {
    teamId
  }
}
    `) as unknown as TypedDocumentString<CreateTeamMutation, CreateTeamMutationVariables>;
export const EditWorkflowDocument = new TypedDocumentString(`
    query EditWorkflow($workflowId: String!) {
  workflow(workflowId: $workflowId) {
    workflowId
    name
    description
    category
    tags
    visibility
    allowForks
    currentVersion
    revision
    digest
    moderation {
      state
      reason
    }
    forkedFrom {
      workflowId
    }
    manifestSource {
      format
      text
    }
  }
}
    `) as unknown as TypedDocumentString<EditWorkflowQuery, EditWorkflowQueryVariables>;
export const CreateWorkflowDocument = new TypedDocumentString(`
    mutation CreateWorkflow($name: String!, $description: String, $category: String, $tags: [String!], $visibility: Visibility, $manifest: JSON!) {
  createWorkflow(
    name: $name
    description: $description
    category: $category
    tags: $tags
    visibility: $visibility
    manifest: $manifest
  ) {
    workflowId
  }
}
    `) as unknown as TypedDocumentString<CreateWorkflowMutation, CreateWorkflowMutationVariables>;
export const UpdateWorkflowDocument = new TypedDocumentString(`
    mutation UpdateWorkflow($workflowId: String!, $name: String!, $description: String, $category: String, $tags: [String!], $visibility: Visibility, $manifest: JSON!, $expectedRevision: Int) {
  updateWorkflow(
    workflowId: $workflowId
    name: $name
    description: $description
    category: $category
    tags: $tags
    visibility: $visibility
    manifest: $manifest
    expectedRevision: $expectedRevision
  ) {
    workflowId
    currentVersion
    revision
  }
}
    `) as unknown as TypedDocumentString<UpdateWorkflowMutation, UpdateWorkflowMutationVariables>;
export const DeleteWorkflowDocument = new TypedDocumentString(`
    mutation DeleteWorkflow($workflowId: String!) {
  deleteWorkflow(workflowId: $workflowId) {
    deleted
  }
}
    `) as unknown as TypedDocumentString<DeleteWorkflowMutation, DeleteWorkflowMutationVariables>;
export const OwnPublicNameDocument = new TypedDocumentString(`
    query OwnPublicName {
  me {
    displayName
  }
}
    `) as unknown as TypedDocumentString<OwnPublicNameQuery, OwnPublicNameQueryVariables>;
export const DeploymentsUsingDocument = new TypedDocumentString(`
    query DeploymentsUsing {
  deployments(limit: 50) {
    data {
      deploymentId
      name
      workflows {
        workflowId
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DeploymentsUsingQuery, DeploymentsUsingQueryVariables>;
export const ManifestDocumentDocument = new TypedDocumentString(`
    query ManifestDocument($workflowId: String!, $format: String) {
  workflowManifest(workflowId: $workflowId, format: $format) {
    body
    contentType
  }
}
    `) as unknown as TypedDocumentString<ManifestDocumentQuery, ManifestDocumentQueryVariables>;
export const WorkflowsDocument = new TypedDocumentString(`
    query Workflows {
  workflows(limit: 100) {
    data {
      workflowId
      name
      description
      visibility
      currentVersion
      updatedAt
      stats {
        subscribers
        forks
        rating
        ratingCount
      }
    }
  }
}
    `) as unknown as TypedDocumentString<WorkflowsQuery, WorkflowsQueryVariables>;