/**
 * The REST route table: each route of the specification mapped onto the GraphQL field that
 * serves it. Path parameters, query parameters and the JSON body fields become the field's
 * arguments of the same names. Adding a route is one line here plus the GraphQL field.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec {
  method: HttpMethod;
  /** Path below /v1, with :params. */
  path: string;
  /** `Query.<field>` or `Mutation.<field>`. */
  field: string;
  /** Status of a successful answer (default 200). */
  status?: number;
  /** The field returns `{ data, pagination }`: both go to the top level of the envelope. */
  list?: boolean;
  /** The field returns `{ contentType, body }`, sent as a document rather than in the envelope. */
  document?: boolean;
  /**
   * An operators' route (docs/marketplace.md, "Reports and takedown"): to anyone else it answers
   * exactly as a route that does not exist.
   */
  operatorsOnly?: boolean;
  /** Fields left out of this route's answer, as `Type.field` (e.g. the manifest in list summaries). */
  omit?: string[];
  /** The answer's `revision` is sent as its ETag header (docs/concurrency.md). */
  etag?: true;
  /** The argument the If-Match header sets (a revision), rather than the body. */
  ifMatch?: string;
  summary: string;
  tag: string;
}

export const routes: RouteSpec[] = [
  { method: 'GET', path: '/users/me', field: 'Query.me', summary: 'The signed-in user with counts', tag: 'Users' },
  {
    method: 'DELETE',
    path: '/users/me',
    field: 'Mutation.deleteMe',
    summary: 'Delete the account and everything it owns, for good',
    tag: 'Users',
  },
  {
    method: 'GET',
    path: '/users/me/sign-in-methods',
    field: 'Query.signInMethods',
    summary: 'The ways into the account (e-mail, GitHub, OpenID provider), oldest first',
    tag: 'Users',
  },
  {
    method: 'DELETE',
    path: '/users/me/sign-in-methods/:id',
    field: 'Mutation.removeSignInMethod',
    summary: 'Remove one way into the account (never the last); answers those left',
    tag: 'Users',
  },
  {
    method: 'GET',
    path: '/billing/subscription',
    field: 'Query.billingSubscription',
    summary: 'The plan and its subscription',
    tag: 'Billing',
  },
  {
    method: 'POST',
    path: '/billing/checkout',
    field: 'Mutation.createCheckoutSession',
    summary: 'Start a subscription checkout',
    tag: 'Billing',
  },
  {
    method: 'POST',
    path: '/billing/portal',
    field: 'Mutation.createBillingPortalSession',
    summary: 'Open the billing portal',
    tag: 'Billing',
  },
  {
    method: 'POST',
    path: '/manifests/validate',
    field: 'Mutation.validateManifest',
    summary: 'Validate a manifest without storing it',
    tag: 'Manifests',
  },
  {
    method: 'GET',
    path: '/workflows',
    field: 'Query.workflows',
    list: true,
    omit: ['Workflow.manifest'],
    summary: "List the caller's workflows",
    tag: 'Workflows',
  },
  {
    method: 'POST',
    path: '/workflows',
    field: 'Mutation.createWorkflow',
    status: 201,
    etag: true,
    summary: 'Create a workflow',
    tag: 'Workflows',
  },
  {
    method: 'GET',
    path: '/workflows/:workflowId',
    field: 'Query.workflow',
    etag: true,
    summary: 'Get a workflow with its manifest',
    tag: 'Workflows',
  },
  {
    method: 'PUT',
    path: '/workflows/:workflowId',
    field: 'Mutation.updateWorkflow',
    etag: true,
    ifMatch: 'expectedRevision',
    summary: 'Replace a workflow',
    tag: 'Workflows',
  },
  { method: 'DELETE', path: '/workflows/:workflowId', field: 'Mutation.deleteWorkflow', summary: 'Delete a workflow', tag: 'Workflows' },
  {
    method: 'POST',
    path: '/workflows/:workflowId/fork',
    field: 'Mutation.forkWorkflow',
    status: 201,
    etag: true,
    summary: 'Fork a public workflow',
    tag: 'Workflows',
  },
  {
    method: 'GET',
    path: '/workflows/:workflowId/manifest',
    field: 'Query.workflowManifest',
    document: true,
    summary: 'Export the manifest as JSON or YAML, or the workflow as a SKILL.md (format=skill, adapter=…)',
    tag: 'Workflows',
  },
  {
    method: 'POST',
    path: '/workflows/:workflowId/check',
    field: 'Mutation.checkWorkflow',
    summary: 'Run the publishing check on your workflow, or on the changes in the body, without storing anything',
    tag: 'Workflows',
  },
  {
    method: 'GET',
    path: '/workflows/:workflowId/versions',
    field: 'Query.workflowVersions',
    list: true,
    omit: ['WorkflowVersion.manifest'],
    summary: 'List the versions of a workflow',
    tag: 'Workflows',
  },
  {
    method: 'GET',
    path: '/workflows/:workflowId/versions/:version',
    field: 'Query.workflowVersion',
    summary: 'Get one version with its manifest',
    tag: 'Workflows',
  },
  {
    method: 'GET',
    path: '/workflows/:workflowId/reviews',
    field: 'Query.workflowReviews',
    list: true,
    summary: 'List the reviews of a workflow, newest first',
    tag: 'Reviews',
  },
  {
    method: 'POST',
    path: '/workflows/:workflowId/reviews',
    field: 'Mutation.createReview',
    status: 201,
    summary: 'Review a workflow you forked or subscribed to',
    tag: 'Reviews',
  },
  {
    method: 'PUT',
    path: '/workflows/:workflowId/reviews/:reviewId',
    field: 'Mutation.updateReview',
    summary: 'Change your review',
    tag: 'Reviews',
  },
  {
    method: 'DELETE',
    path: '/workflows/:workflowId/reviews/:reviewId',
    field: 'Mutation.deleteReview',
    summary: 'Delete your review',
    tag: 'Reviews',
  },
  {
    method: 'POST',
    path: '/workflows/:workflowId/reports',
    field: 'Mutation.reportWorkflow',
    status: 201,
    summary: "Report another user's public workflow to the operators",
    tag: 'Reports',
  },
  {
    method: 'GET',
    path: '/admin/reports',
    field: 'Query.moderationReports',
    list: true,
    operatorsOnly: true,
    summary: 'Reports of workflows, newest first (operators only)',
    tag: 'Operators',
  },
  {
    method: 'POST',
    path: '/admin/workflows/:workflowId/moderation',
    field: 'Mutation.moderateWorkflow',
    status: 201,
    operatorsOnly: true,
    summary: 'Unlist, suspend or reinstate a workflow, or dismiss its reports (operators only)',
    tag: 'Operators',
  },
  {
    method: 'GET',
    path: '/admin/moderation-actions',
    field: 'Query.moderationActions',
    list: true,
    operatorsOnly: true,
    summary: "The operators' log (operators only)",
    tag: 'Operators',
  },
  {
    method: 'GET',
    path: '/api-keys',
    field: 'Query.apiKeys',
    list: true,
    summary: 'List your personal API keys (never their secrets)',
    tag: 'API keys',
  },
  {
    method: 'POST',
    path: '/api-keys',
    field: 'Mutation.createApiKey',
    status: 201,
    summary: 'Create a personal API key; its secret is in this answer only',
    tag: 'API keys',
  },
  { method: 'DELETE', path: '/api-keys/:keyId', field: 'Mutation.revokeApiKey', summary: 'Revoke a personal API key', tag: 'API keys' },
  {
    method: 'GET',
    path: '/connected-apps',
    field: 'Query.connectedApps',
    summary: 'The applications (MCP clients) you connected with OAuth',
    tag: 'Connected apps',
  },
  {
    method: 'DELETE',
    path: '/connected-apps/:connectedAppId',
    field: 'Mutation.disconnectApp',
    summary: 'Disconnect an application: its tokens stop working at once',
    tag: 'Connected apps',
  },
  {
    method: 'GET',
    path: '/marketplace',
    field: 'Query.marketplace',
    list: true,
    summary: "Browse every user's public workflows",
    tag: 'Marketplace',
  },
  {
    method: 'GET',
    path: '/marketplace/search',
    field: 'Query.marketplaceSearch',
    list: true,
    summary: 'Search public workflows by text',
    tag: 'Marketplace',
  },
  {
    method: 'GET',
    path: '/marketplace/featured',
    field: 'Query.marketplaceFeatured',
    list: true,
    summary: 'A short list of featured workflows',
    tag: 'Marketplace',
  },
  { method: 'GET', path: '/library', field: 'Query.library', list: true, summary: "List the caller's library", tag: 'Library' },
  {
    method: 'POST',
    path: '/library/:workflowId',
    field: 'Mutation.addToLibrary',
    status: 201,
    summary: 'Add a workflow to the library (subscribe)',
    tag: 'Library',
  },
  {
    method: 'PATCH',
    path: '/library/:workflowId',
    field: 'Mutation.updateLibraryEntry',
    summary: 'Change a library entry',
    tag: 'Library',
  },
  {
    method: 'POST',
    path: '/library/:workflowId/accept',
    field: 'Mutation.acceptLibraryUpdate',
    summary: "Accept a subscription's update: move it to the latest version",
    tag: 'Library',
  },
  {
    method: 'DELETE',
    path: '/library/:workflowId',
    field: 'Mutation.removeFromLibrary',
    summary: 'Remove a workflow from the library',
    tag: 'Library',
  },
  {
    method: 'GET',
    path: '/deployments',
    field: 'Query.deployments',
    list: true,
    summary: "List the caller's deployments with usage",
    tag: 'Deployments',
  },
  {
    method: 'POST',
    path: '/deployments',
    field: 'Mutation.createDeployment',
    status: 201,
    etag: true,
    summary: 'Create a deployment (an MCP endpoint)',
    tag: 'Deployments',
  },
  {
    method: 'GET',
    path: '/deployments/:deploymentId',
    field: 'Query.deployment',
    etag: true,
    summary: 'Get a deployment',
    tag: 'Deployments',
  },
  {
    method: 'PUT',
    path: '/deployments/:deploymentId',
    field: 'Mutation.updateDeployment',
    etag: true,
    ifMatch: 'expectedRevision',
    summary: 'Change a deployment',
    tag: 'Deployments',
  },
  {
    method: 'DELETE',
    path: '/deployments/:deploymentId',
    field: 'Mutation.deleteDeployment',
    summary: 'Delete a deployment for good',
    tag: 'Deployments',
  },
  {
    method: 'POST',
    path: '/deployments/:deploymentId/adapters',
    field: 'Mutation.setDeploymentAdapter',
    summary: 'Enable or disable an adapter',
    tag: 'Deployments',
  },
  {
    method: 'POST',
    path: '/deployments/:deploymentId/activate',
    field: 'Mutation.activateDeployment',
    etag: true,
    summary: 'Activate a deployment',
    tag: 'Deployments',
  },
  {
    method: 'POST',
    path: '/deployments/:deploymentId/deactivate',
    field: 'Mutation.deactivateDeployment',
    etag: true,
    summary: 'Deactivate a deployment',
    tag: 'Deployments',
  },
  {
    method: 'GET',
    path: '/deployments/:deploymentId/usage',
    field: 'Query.deploymentUsage',
    summary: "A deployment's connections by adapter and day",
    tag: 'Deployments',
  },
  {
    method: 'GET',
    path: '/deployments/:deploymentId/install',
    field: 'Query.deploymentInstall',
    summary: 'How to install a deployment into each agent client (docs/install.md)',
    tag: 'Deployments',
  },
  {
    method: 'POST',
    path: '/deployments/:deploymentId/install/key',
    field: 'Mutation.createDeploymentInstallKey',
    status: 201,
    summary: 'Make an API key for the deployment and get the install data with it filled in',
    tag: 'Deployments',
  },
];
