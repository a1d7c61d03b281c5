import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import type { CallResult, TestApp } from '../helpers/app.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';
import { connectApp } from '../helpers/oauth.js';
import { initializeRequest } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { seedTeamDeploymentWorld, type TeamDeploymentWorld } from '../teams/deployment-world.js';
import { addMember } from '../teams/helpers.js';

/**
 * Who may call what: every REST route of the route table, the tool endpoint and /graphql, called
 * by the owner of the resources, by another signed-in user, and without a token. The expected
 * answer of each (route × caller) is in MATRIX below; a route added to src/rest/routes.ts without
 * a row there fails this file.
 *
 * The owner's private data carries unique markers (names, descriptions, tags, manifest intent,
 * deployment name, e-mail). No answer to another user or to an anonymous caller — errors
 * included — may contain any of them, and a refused call must leave the owner's data as it was.
 */

type Caller = 'owner' | 'other' | 'anonymous' | 'admin' | 'member' | 'removed';
/** An HTTP status, or `"<status> <CODE>"` when the code is worth pinning (GraphQL and JSON-RPC errors ride on 200). */
type Expected = number | `${number} ${string}`;
/** Which of the owner's workflows a route's `:workflowId` names (`team`: the private workflow of the owner's team). */
type On = 'private' | 'public' | 'reviewed' | 'team';

interface Row {
  /** `METHOD /path` as in the route table (below /v1), or the tool endpoint, or /graphql. */
  route: string;
  on?: On;
  /** Added to the path; `:teamId` in it is the owner's team. */
  query?: string;
  body?: (w: World) => unknown;
  /** GraphQL rows: the operation. */
  graphql?: (w: World) => { query: string; variables: Record<string, unknown> };
  owner: Expected;
  other: Expected;
  anonymous: Expected;
  /** Team routes: the answers to an admin and to a plain member of the owner's team (`other` is an outsider). */
  admin?: Expected;
  member?: Expected;
  /** Team workflow rows: the answer to a former admin of the team, who wrote its private workflow before being removed. */
  removed?: Expected;
}

interface World {
  owner: string;
  other: string;
  ownerEmail: string;
  privateId: string;
  publicId: string;
  /** A third user's public workflow the owner subscribed to and reviewed. */
  reviewedId: string;
  reviewId: string;
  deploymentId: string;
  /** One of the owner's API keys (scope api). */
  keyId: string;
  /** An application the owner connected with OAuth to the deployment. */
  connectedAppId: string;
  /** The owner's only way in. */
  signInMethodId: string;
  ownerId: string;
  /** The owner's team, with an admin and a member (tokens), and a pending invitation of a third address. */
  teamId: string;
  admin: string;
  member: string;
  memberId: string;
  /** The team's private workflow, written by `removed` while an admin, and the former admin's token. */
  teamWorkflowId: string;
  removed: string;
  invitationId: string;
  invitationToken: string;
  markers: string[];
}

const URLS = { successUrl: 'https://app.example.com/ok', cancelUrl: 'https://app.example.com/cancel' };
const INITIALIZE = initializeRequest({ clientName: 'matrix' });
const workflowBody = () => ({ name: 'Replacement', manifest: sampleManifest(), visibility: 'private' });
const newInvitee = () => ({ email: `invitee-${randomBytes(4).toString('hex')}@example.com`, role: 'member' });

// prettier-ignore
const MATRIX: Row[] = [
  { route: 'GET /users/me', owner: 200, other: 200, anonymous: 401 },
  // The owner is the only owner of a team with other members: refused until ownership is passed on.
  { route: 'DELETE /users/me', owner: '409 CONFLICT', other: 200, anonymous: 401 },
  { route: 'GET /users/me/sign-in-methods', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /users/me/audit-log', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /users/me/audit-log.csv', owner: 200, other: 200, anonymous: 401 },
  // Teams: \`other\` is an outsider, to whom the owner's team does not exist.
  { route: 'GET /teams', owner: 200, admin: 200, member: 200, other: 200, anonymous: 401 },
  { route: 'POST /teams', body: () => ({ name: 'Another team' }), owner: 201, admin: 201, member: 201, other: 201, anonymous: 401 },
  { route: 'GET /teams/:teamId/members', owner: 200, admin: 200, member: 200, other: 404, anonymous: 401 },
  // Callers in this order: anonymous, other, member, admin, owner.
  { route: 'PATCH /teams/:teamId/members/:userId', body: () => ({ role: 'admin' }), owner: 200, admin: 200, member: 403, other: 404, anonymous: 401 },
  // The member removing themselves would be leaving: an admin's removal is in test/teams/members.test.ts.
  { route: 'DELETE /teams/:teamId/members/:userId', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /teams/:teamId/invitations', owner: 200, admin: 200, member: 403, other: 404, anonymous: 401 },
  { route: 'POST /teams/:teamId/invitations', body: newInvitee, owner: 201, admin: 201, member: 403, other: 404, anonymous: 401 },
  { route: 'DELETE /teams/:teamId/invitations/:invitationId', owner: 200, member: 403, other: 404, anonymous: 401 },
  // The invitation is a third address's: no caller here may accept it (test/teams/ accepts).
  { route: 'POST /invitations/:token/accept', body: () => ({}), owner: '403 FORBIDDEN', member: '403 FORBIDDEN', other: '403 FORBIDDEN', anonymous: 401 },
  { route: 'PUT /teams/:teamId/billing-owner', body: (w) => ({ userId: w.ownerId }), owner: 200, admin: 403, member: 403, other: 404, anonymous: 401 },
  { route: 'GET /teams/:teamId/audit-log', owner: 200, admin: 200, member: 403, other: 404, anonymous: 401 },
  { route: 'GET /teams/:teamId/audit-log.csv', owner: 200, admin: 200, member: 403, other: 404, anonymous: 401 },
  // The owner's only way in cannot be removed; another user's is not found.
  { route: 'DELETE /users/me/sign-in-methods/:id', owner: 409, other: 404, anonymous: 401 },
  { route: 'GET /billing/subscription', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /billing/checkout', body: () => ({ priceId: 'pro_monthly', ...URLS }), owner: 501, other: 501, anonymous: 401 },
  { route: 'POST /billing/portal', body: () => ({}), owner: 501, other: 501, anonymous: 401 },
  { route: 'POST /manifests/validate', body: () => ({ manifest: sampleManifest() }), owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /workflows', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /workflows', body: () => ({ name: 'New', manifest: sampleManifest() }), owner: 201, other: 201, anonymous: 401 },
  { route: 'GET /workflows/:workflowId', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId', on: 'public', owner: 200, other: 200, anonymous: 401 },
  { route: 'PUT /workflows/:workflowId', on: 'private', body: workflowBody, owner: 200, other: 404, anonymous: 401 },
  { route: 'PUT /workflows/:workflowId', on: 'public', body: workflowBody, owner: 200, other: 403, anonymous: 401 },
  { route: 'DELETE /workflows/:workflowId', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'DELETE /workflows/:workflowId', on: 'public', owner: 200, other: 403, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/fork', on: 'private', body: () => ({}), owner: 403, other: 404, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/fork', on: 'public', body: () => ({}), owner: 403, other: 201, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/manifest', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/manifest', on: 'private', query: '?format=yaml', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/manifest', on: 'public', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/versions', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/versions', on: 'public', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/versions/:version', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/versions/:version', on: 'public', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/reviews', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/reviews', on: 'public', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/reviews', on: 'private', body: () => ({ rating: 5, text: 'Great workflow for us.' }), owner: 403, other: 404, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/reviews', on: 'public', body: () => ({ rating: 5, text: 'Great workflow for us.' }), owner: 403, other: 403, anonymous: 401 },
  { route: 'PUT /workflows/:workflowId/reviews/:reviewId', on: 'reviewed', body: () => ({ rating: 2, text: 'Changed my mind about it.' }), owner: 200, other: 403, anonymous: 401 },
  { route: 'DELETE /workflows/:workflowId/reviews/:reviewId', on: 'reviewed', owner: 200, other: 403, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/check', on: 'private', body: () => ({}), owner: 200, other: 404, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/check', on: 'public', body: () => ({}), owner: 200, other: 403, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/reports', on: 'private', body: () => ({ reason: 'Asks the agent to read secrets.' }), owner: 403, other: 404, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/reports', on: 'public', body: () => ({ reason: 'Asks the agent to read secrets.' }), owner: 403, other: 201, anonymous: 401 },
  // The team's private workflow: its members read and fork it, owners and admins change it, only
  // owners move it out; to a former admin who wrote it, as to an outsider, it does not exist.
  { route: 'GET /workflows', query: '?teamId=:teamId', owner: 200, admin: 200, member: 200, removed: 404, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId', on: 'team', owner: 200, admin: 200, member: 200, removed: 404, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/manifest', on: 'team', query: '?format=yaml', owner: 200, admin: 200, member: 200, removed: 404, other: 404, anonymous: 401 },
  { route: 'GET /workflows/:workflowId/versions', on: 'team', owner: 200, admin: 200, member: 200, removed: 404, other: 404, anonymous: 401 },
  { route: 'PUT /workflows/:workflowId', on: 'team', body: workflowBody, owner: 200, admin: 200, member: 403, removed: 404, other: 404, anonymous: 401 },
  // The admin's deletion would leave the owner nothing to delete: test/teams/workflows.test.ts has it.
  { route: 'DELETE /workflows/:workflowId', on: 'team', owner: 200, member: 403, removed: 404, other: 404, anonymous: 401 },
  { route: 'POST /workflows/:workflowId/fork', on: 'team', body: () => ({}), owner: 201, admin: 201, member: 201, removed: 404, other: 404, anonymous: 401 },
  { route: 'PUT /workflows/:workflowId', on: 'team', body: () => ({ teamId: null }), owner: 200, admin: 403, member: 403, removed: 404, other: 404, anonymous: 401 },
  // Moving the owner's personal workflow into the team: only its author may.
  { route: 'PUT /workflows/:workflowId', on: 'private', body: (w) => ({ teamId: w.teamId }), owner: 200, admin: 404, member: 404, removed: 404, other: 404, anonymous: 401 },
  // The operators' routes: no operator is configured here, so to everyone they are routes that do not exist.
  { route: 'GET /admin/reports', owner: 404, other: 404, anonymous: 404 },
  { route: 'POST /admin/workflows/:workflowId/moderation', on: 'public', body: () => ({ action: 'suspend', reason: 'Takedown test.' }), owner: 404, other: 404, anonymous: 404 },
  { route: 'GET /admin/moderation-actions', owner: 404, other: 404, anonymous: 404 },
  { route: 'POST /library/:workflowId/accept', on: 'reviewed', body: () => ({}), owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /marketplace', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /marketplace/search', query: '?q=PRIVATE', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /marketplace/featured', owner: 200, other: 200, anonymous: 401 },
  { route: 'GET /library', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /library/:workflowId', on: 'private', body: () => ({}), owner: 409, other: 404, anonymous: 401 },
  { route: 'POST /library/:workflowId', on: 'public', body: () => ({}), owner: 409, other: 201, anonymous: 401 },
  { route: 'PATCH /library/:workflowId', on: 'private', body: () => ({ isActive: false }), owner: 200, other: 404, anonymous: 401 },
  { route: 'DELETE /library/:workflowId', on: 'private', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /api-keys', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /api-keys', body: () => ({ name: 'Matrix key', scope: 'api' }), owner: 201, other: 201, anonymous: 401 },
  { route: 'DELETE /api-keys/:keyId', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /connected-apps', owner: 200, other: 200, anonymous: 401 },
  { route: 'DELETE /connected-apps/:connectedAppId', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /deployments', owner: 200, other: 200, anonymous: 401 },
  { route: 'POST /deployments', body: (w) => ({ name: 'Bundle', workflowIds: [w.privateId] }), owner: 201, other: 400, anonymous: 401 },
  { route: 'GET /deployments/:deploymentId', owner: 200, other: 404, anonymous: 401 },
  { route: 'PUT /deployments/:deploymentId', body: () => ({ name: 'Renamed' }), owner: 200, other: 404, anonymous: 401 },
  { route: 'DELETE /deployments/:deploymentId', owner: 200, other: 404, anonymous: 401 },
  { route: 'POST /deployments/:deploymentId/adapters', body: () => ({ adapter: 'adapter_two', enabled: false }), owner: 200, other: 404, anonymous: 401 },
  { route: 'POST /deployments/:deploymentId/activate', owner: 200, other: 404, anonymous: 401 },
  { route: 'POST /deployments/:deploymentId/deactivate', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /deployments/:deploymentId/usage', owner: 200, other: 404, anonymous: 401 },
  { route: 'GET /deployments/:deploymentId/install', owner: 200, other: 404, anonymous: 401 },
  { route: 'POST /deployments/:deploymentId/install/key', body: () => ({}), owner: 201, other: 404, anonymous: 401 },
  // The tool endpoint of a private deployment (allowAnonymous false): JSON-RPC errors carry data.code.
  { route: 'POST /mcp/:deploymentId', body: () => INITIALIZE, owner: 200, other: '404 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  // GraphQL answers field errors with HTTP 200; a missing or bad token is refused before execution.
  { route: 'POST /graphql', graphql: (w) => ({ query: 'query($id: String!) { workflow(workflowId: $id) { name description tags category manifest } }', variables: { id: w.privateId } }), owner: 200, other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'query($id: String!) { workflowVersions(workflowId: $id) { data { version manifest } } }', variables: { id: w.privateId } }), owner: 200, other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'query($id: String!) { deployment(deploymentId: $id) { name description mcpEndpoint } }', variables: { id: w.deploymentId } }), owner: 200, other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'mutation($id: String!, $m: JSON!) { updateWorkflow(workflowId: $id, name: "Taken", manifest: $m) { name } }', variables: { id: w.privateId, m: sampleManifest() } }), owner: 200, other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'query($id: String!) { workflow(workflowId: $id) { name manifest teamId } }', variables: { id: w.teamWorkflowId } }), owner: 200, admin: 200, member: 200, removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'query($teamId: String) { workflows(teamId: $teamId) { data { name description } } }', variables: { teamId: w.teamId } }), owner: 200, admin: 200, member: 200, removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'mutation($id: String!) { updateWorkflow(workflowId: $id, description: "Changed") { name } }', variables: { id: w.teamWorkflowId } }), owner: 200, admin: 200, member: '200 FORBIDDEN', removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'mutation($id: String!) { forkWorkflow(workflowId: $id) { name } }', variables: { id: w.teamWorkflowId } }), owner: 200, admin: 200, member: 200, removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'mutation($id: String!) { updateWorkflow(workflowId: $id, teamId: null) { name } }', variables: { id: w.teamWorkflowId } }), owner: 200, admin: '200 FORBIDDEN', member: '200 FORBIDDEN', removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: (w) => ({ query: 'mutation($id: String!) { deleteWorkflow(workflowId: $id) { deleted } }', variables: { id: w.teamWorkflowId } }), owner: 200, member: '200 FORBIDDEN', removed: '200 NOT_FOUND', other: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' },
  { route: 'POST /graphql', graphql: () => ({ query: '{ me { email } library { data { workflowId workflowName } } deployments { data { name description } } workflows { data { name description tags } } }', variables: {} }), owner: 200, other: 200, anonymous: '401 UNAUTHORIZED' },
];

const ROUTE_KEYS = new Set(routes.map((r) => `${r.method} ${r.path}`));
const SPECIAL = new Set(['POST /mcp/:deploymentId', 'POST /graphql']);

/** A world of placeholders, for the text of a GraphQL row's operation. */
const NAMES = { privateId: 'x', deploymentId: 'x', teamWorkflowId: 'x', teamId: 'x' } as World;

function label(row: Row): string {
  return `${row.route}${row.on ? ` [${row.on}]` : ''}${row.query ?? ''}${row.graphql ? ` ${row.graphql(NAMES).query.slice(0, 64)}` : ''}`;
}

/** Mutating rows get a world of their own, so each row's expectation holds whatever ran before. */
const mutates = (row: Row) => !row.route.startsWith('GET ') && !(row.graphql && !row.graphql(NAMES).query.startsWith('mutation'));

/** Every marker of every world seeded: no answer to another user may contain one. */
const allMarkers: string[] = [];

async function seedWorld(t: TestApp): Promise<World> {
  const r = randomBytes(5).toString('hex');
  const ownerEmail = `owner-${r}@example.com`;
  const owner = await t.token(ownerEmail);
  const other = await t.token(`other-${r}@example.com`);
  const third = await t.token(`third-${r}@example.com`);
  const markers = [
    `PRIVATE-${r}-name`,
    `PRIVATE-${r}-desc`,
    `private-${r}-tag`,
    `private-${r}-cat`,
    `PRIVATE-${r}-intent`,
    `PRIVATE-${r}-step`,
    `PRIVATE-${r}-v2`,
    `PRIVATE-${r}-dep`,
    `PRIVATE-${r}-depdesc`,
    `owner-${r}`,
  ];
  const manifest = (intent: string) => {
    const m = sampleManifest({ intent });
    m.steps[0].name = `PRIVATE-${r}-step`;
    return m;
  };
  const privateWf = await createWorkflow(t, owner, {
    name: `PRIVATE-${r}-name`,
    description: `PRIVATE-${r}-desc`,
    tags: [`private-${r}-tag`],
    category: `private-${r}-cat`,
    manifest: manifest(`PRIVATE-${r}-intent`),
  });
  // A second version whose manifest carries its own marker.
  const update = await t.call('PUT', `/v1/workflows/${privateWf.workflowId}`, {
    token: owner,
    body: {
      name: `PRIVATE-${r}-name`,
      description: `PRIVATE-${r}-desc`,
      tags: [`private-${r}-tag`],
      category: `private-${r}-cat`,
      manifest: manifest(`PRIVATE-${r}-v2`),
    },
  });
  expect(update.status, update.text).toBe(200);
  expect(update.body.data.currentVersion).toBe('1.0.1');
  const publicWf = await createWorkflow(t, owner, { name: `Public ${r}`, description: 'Anyone may read this', visibility: 'public' });
  const reviewed = await createWorkflow(t, third, { name: `Third ${r}`, visibility: 'public' });
  expect((await t.call('POST', `/v1/library/${reviewed.workflowId}`, { token: owner, body: {} })).status).toBe(201);
  const review = await t.call('POST', `/v1/workflows/${reviewed.workflowId}/reviews`, {
    token: owner,
    body: { rating: 4, text: 'Useful for every review.' },
  });
  expect(review.status, review.text).toBe(201);
  const deployment = await t.call('POST', '/v1/deployments', {
    token: owner,
    body: { name: `PRIVATE-${r}-dep`, description: `PRIVATE-${r}-depdesc`, workflowIds: [privateWf.workflowId, publicWf.workflowId] },
  });
  expect(deployment.status, deployment.text).toBe(201);
  const key = await t.call('POST', '/v1/api-keys', { token: owner, body: { name: `PRIVATE-${r}-key`, scope: 'api' } });
  expect(key.status, key.text).toBe(201);
  markers.push(`PRIVATE-${r}-key`);
  const connectedAppId = await connectApp(t, ownerEmail, deployment.body.data.deploymentId);
  const methods = await t.call('GET', '/v1/users/me/sign-in-methods', { token: owner });
  expect(methods.status, methods.text).toBe(200);
  const signInMethodId = (methods.body.data as { id: string }[])[0]!.id;
  const team = await seedTeam(t, r, owner);
  markers.push(`PRIVATE-${r}-team`, `PRIVATE-${r}-teamintent`);
  allMarkers.push(...markers.map((m) => m.toLowerCase()));
  return {
    owner,
    other,
    ownerEmail,
    privateId: privateWf.workflowId,
    publicId: publicWf.workflowId,
    reviewedId: reviewed.workflowId,
    reviewId: review.body.data.reviewId,
    deploymentId: deployment.body.data.deploymentId,
    keyId: key.body.data.keyId,
    connectedAppId,
    signInMethodId,
    ownerId: (await t.call('GET', '/v1/users/me', { token: owner })).body.data.userId,
    ...team,
    markers,
  };
}

/**
 * The owner's team (its name a marker) with an admin and a member, who joined by invitation, and
 * a pending invitation of a third address. Development tokens vouch for no address: the addresses
 * are marked verified as an e-mail link would.
 */
async function seedTeam(t: TestApp, r: string, owner: string) {
  const created = await t.call('POST', '/v1/teams', { token: owner, body: { name: `PRIVATE-${r}-team` } });
  expect(created.status, created.text).toBe(201);
  const teamId = created.body.data.teamId as string;
  const join = async (email: string, role: string) => {
    const token = await t.token(email);
    await t.database.db.prisma.signInIdentity.updateMany({ where: { email }, data: { emailVerified: true } });
    const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, { token: owner, body: { email, role } });
    expect(invited.status, invited.text).toBe(201);
    const link = invited.body.data.acceptUrl as string;
    const accepted = await t.call('POST', `/v1/invitations/${link.slice(link.lastIndexOf('/') + 1)}/accept`, { token, body: {} });
    expect(accepted.status, accepted.text).toBe(200);
    return token;
  };
  const admin = await join(`admin-${r}@example.com`, 'admin');
  const member = await join(`member-${r}@example.com`, 'member');
  const memberId = (await t.call('GET', '/v1/users/me', { token: member })).body.data.userId as string;
  const removed = await join(`removed-${r}@example.com`, 'admin');
  const teamWorkflow = await createWorkflow(t, removed, {
    name: `PRIVATE-${r}-teamwf`,
    manifest: sampleManifest({ intent: `PRIVATE-${r}-teamintent` }),
    teamId,
  });
  const removedId = (await t.call('GET', '/v1/users/me', { token: removed })).body.data.userId as string;
  const removal = await t.call('DELETE', `/v1/teams/${teamId}/members/${removedId}`, { token: owner });
  expect(removal.status, removal.text).toBe(200);
  const invited = await t.call('POST', `/v1/teams/${teamId}/invitations`, {
    token: owner,
    body: { email: `invitee-${r}@example.com`, role: 'member' },
  });
  expect(invited.status, invited.text).toBe(201);
  const link = invited.body.data.acceptUrl as string;
  return {
    teamId,
    admin,
    member,
    memberId,
    teamWorkflowId: teamWorkflow.workflowId as string,
    removed,
    invitationId: invited.body.data.invitationId as string,
    invitationToken: link.slice(link.lastIndexOf('/') + 1),
  };
}

/**
 * The file's service, and the worlds of the rows that change nothing, seeded once: the owner's
 * (for the first matrix) and the team's (for the second).
 */
const test = serviceTestWith({ PUBLIC_BASE_URL: 'https://api.example.com/v1' }).extend<{ shared: World; sharedTeam: TeamWorld }>({
  shared: [async ({ service: t }, use) => use(await seedWorld(t)), { scope: 'file' }],
  sharedTeam: [async ({ service: t }, use) => use(await seedTeamWorld(t)), { scope: 'file' }],
});

describe('access matrix', () => {
  function call(t: TestApp, row: Row, w: World, caller: Caller): Promise<CallResult> {
    const token = caller === 'anonymous' ? null : w[caller];
    if (row.graphql) {
      const op = row.graphql(w);
      return t.graphql(op.query, op.variables, token);
    }
    const [method, template] = row.route.split(' ') as [string, string];
    const workflowId = { public: w.publicId, reviewed: w.reviewedId, team: w.teamWorkflowId, private: w.privateId }[row.on ?? 'private'];
    const version = row.on === 'public' ? '1.0.0' : '1.0.1';
    const path = template
      .replace(':workflowId', workflowId)
      .replace(':deploymentId', w.deploymentId)
      .replace(':reviewId', w.reviewId)
      .replace(':keyId', w.keyId)
      .replace(':connectedAppId', w.connectedAppId)
      .replace(':teamId', w.teamId)
      .replace(':userId', w.memberId)
      .replace(':invitationId', w.invitationId)
      .replace(':token', w.invitationToken)
      .replace(':id', w.signInMethodId)
      .replace(':version', version);
    const headers = row.route.startsWith('POST /mcp/') ? { accept: 'application/json, text/event-stream' } : undefined;
    const query = (row.query ?? '').replace(':teamId', w.teamId);
    return t.call(method, `/v1${path}${query}`, { token, body: row.body?.(w), headers });
  }

  /** What a refused call must not have changed: the owner's view of everything they own. */
  async function ownerView(t: TestApp, w: World): Promise<string> {
    const paths = [
      `/v1/workflows/${w.privateId}`,
      `/v1/workflows/${w.publicId}`,
      `/v1/deployments/${w.deploymentId}`,
      '/v1/library',
      '/v1/workflows',
      '/v1/deployments',
      `/v1/workflows/${w.reviewedId}/reviews`,
      '/v1/api-keys',
      `/v1/teams/${w.teamId}/members`,
      `/v1/teams/${w.teamId}/invitations`,
      `/v1/workflows/${w.teamWorkflowId}`,
      `/v1/workflows?teamId=${w.teamId}`,
    ];
    const views = await Promise.all(paths.map((p) => t.call('GET', p, { token: w.owner })));
    // Usage counters move with the owner's own calls only; connections are not part of this matrix.
    return views.map((v) => `${v.status} ${v.text}`).join('\n');
  }

  function expectAnswer(res: CallResult, expected: Expected, what: string): void {
    const [status, code] = typeof expected === 'number' ? [expected, undefined] : [Number(expected.split(' ')[0]), expected.split(' ')[1]];
    expect(res.status, `${what}: ${res.text.slice(0, 400)}`).toBe(status);
    const body = res.body as any;
    const actualCode = body?.jsonrpc ? body?.error?.data?.code : (body?.error?.code ?? body?.errors?.[0]?.extensions?.code);
    if (code) expect(actualCode, `${what}: ${res.text.slice(0, 400)}`).toBe(code);
    else if (status < 300) expect(body?.errors ?? body?.error, `${what}: ${res.text.slice(0, 400)}`).toBeUndefined();
  }

  function expectNoMarker(res: CallResult, what: string): void {
    const text = `${res.text}\n${[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n')}`.toLowerCase();
    for (const marker of allMarkers) expect(text.includes(marker), `${what} leaks ${marker}: ${res.text.slice(0, 400)}`).toBe(false);
  }

  test('has a row for every route of the route table, and no row for a route that does not exist', () => {
    const covered = new Set(MATRIX.map((r) => r.route));
    const missing = [...ROUTE_KEYS].filter((k) => !covered.has(k));
    expect(missing, 'routes without a row in MATRIX: add them').toEqual([]);
    const stale = [...covered].filter((k) => !ROUTE_KEYS.has(k) && !SPECIAL.has(k));
    expect(stale, 'rows for routes that are not in src/rest/routes.ts').toEqual([]);
    for (const k of SPECIAL) expect(covered.has(k), k).toBe(true);
  });

  // The first test on the shared world seeds it, a team joined by invitation included: on a loaded
  // machine, more than the default test time.
  test('answers the owner what the owner may see, markers included', async ({ service: t, shared }) => {
    const w = shared;
    const detail = await t.call('GET', `/v1/workflows/${w.privateId}`, { token: w.owner });
    for (const m of [0, 1, 2, 3, 5, 6].map((i) => w.markers[i]!)) expect(detail.text.toLowerCase()).toContain(m.toLowerCase());
    const first = await t.call('GET', `/v1/workflows/${w.privateId}/versions/1.0.0`, { token: w.owner });
    expect(first.text).toContain(w.markers[4]);
    const dep = await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token: w.owner });
    expect(dep.text).toContain(w.markers[7]);
    expect(dep.text).toContain(w.markers[8]);
    expect((await t.call('GET', '/v1/users/me', { token: w.owner })).text).toContain(w.ownerEmail);
  }, 180_000);

  for (const row of MATRIX) {
    test(`${label(row)}: owner ${row.owner}, other ${row.other}, anonymous ${row.anonymous}`, async ({ service: t, shared }) => {
      const w = mutates(row) ? await seedWorld(t) : shared;
      const before = await ownerView(t, w);
      let refusedOnly = true;
      for (const caller of ['anonymous', 'other', 'removed'] as const) {
        const expected = row[caller];
        if (expected === undefined) continue;
        const res = await call(t, row, w, caller);
        expectAnswer(res, expected, `${caller} ${label(row)}`);
        expectNoMarker(res, `${caller} ${label(row)}`);
        refusedOnly &&= res.status >= 400 || res.text.includes('"errors"');
      }
      // A refused call leaves the owner's data as it was (a fork or subscription of a public
      // workflow, which succeed, legitimately move its counters).
      if (refusedOnly || row.route === 'DELETE /users/me') expect(await ownerView(t, w)).toBe(before);
      // The team's own roles: refusals leak nothing either way, and the answers are as the row says.
      for (const caller of ['member', 'admin'] as const) {
        const expected = row[caller];
        if (expected === undefined) continue;
        const res = await call(t, row, w, caller);
        expectAnswer(res, expected, `${caller} ${label(row)}`);
      }
      const res = await call(t, row, w, 'owner');
      expectAnswer(res, row.owner, `owner ${label(row)}`);
    });
  }

  test('keeps markers out of what others see of the owner through lists and search', async ({ service: t, shared }) => {
    const w = shared;
    const lists = ['/v1/marketplace', '/v1/marketplace/featured', '/v1/workflows', '/v1/library', '/v1/deployments'];
    for (const marker of w.markers) lists.push(`/v1/marketplace/search?q=${encodeURIComponent(marker)}`);
    for (const path of lists) {
      const res = await t.call('GET', path, { token: w.other });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
      expectNoMarker(res, path);
    }
    // Unknown and other users' ids answer alike, so existence does not leak either.
    const unknown = await t.call('GET', '/v1/workflows/wf_00000000000000000000', { token: w.other });
    const hidden = await t.call('GET', `/v1/workflows/${w.privateId}`, { token: w.other });
    expect(hidden.status).toBe(unknown.status);
    expect(hidden.body.error.message.replace(w.privateId, 'ID')).toBe(unknown.body.error.message.replace('wf_00000000000000000000', 'ID'));
  });
});

/**
 * A team's deployment, called by each role of the team, by a member removed from it, by an
 * outsider and without a token, through REST, GraphQL and the tool endpoint (docs/teams.md, "Team
 * deployments"). A row whose call changes something gets a world of its own for the owner, so
 * each answer holds whatever ran before; the refused callers must leave the deployment as it was.
 */
type TeamCaller = 'owner' | 'admin' | 'member' | 'removed' | 'outsider' | 'anonymous';

interface TeamRow {
  what: string;
  /** The call, on a world; `key`: the tool endpoint with each caller's API key instead of their token. */
  call: (
    tw: TeamWorld,
  ) => { method: string; path: string; body?: unknown; key?: boolean } | { graphql: string; variables: Record<string, unknown> };
  mutates?: boolean;
  expect: Record<TeamCaller, Expected>;
}

interface TeamWorld extends TeamDeploymentWorld {
  removed: string;
  /** Each caller's API key (scope mcp) made while they could: the removed member's before the removal. */
  keys: Record<Exclude<TeamCaller, 'anonymous'>, string>;
}

const ALL_BUT_MEMBERS = { removed: 404, outsider: 404, anonymous: 401 } as const;
const READ = { owner: 200, admin: 200, member: 200, ...ALL_BUT_MEMBERS } as const;
const CHANGE = { owner: 200, admin: 200, member: 403, ...ALL_BUT_MEMBERS } as const;
const GRAPHQL_HIDDEN = { removed: '200 NOT_FOUND', outsider: '200 NOT_FOUND', anonymous: '401 UNAUTHORIZED' } as const;

// prettier-ignore
const TEAM_DEPLOYMENT_MATRIX: TeamRow[] = [
  { what: 'GET /deployments?teamId', call: (w) => ({ method: 'GET', path: `/deployments?teamId=${w.teamId}` }), expect: READ },
  { what: 'POST /deployments with teamId', mutates: true, call: (w) => ({ method: 'POST', path: '/deployments', body: { name: 'Another', teamId: w.teamId, workflowIds: [w.teamWorkflow] } }), expect: { ...CHANGE, owner: 201, admin: 201 } },
  { what: 'GET /deployments/:deploymentId', call: (w) => ({ method: 'GET', path: `/deployments/${w.deploymentId}` }), expect: READ },
  { what: 'GET /deployments/:deploymentId/usage', call: (w) => ({ method: 'GET', path: `/deployments/${w.deploymentId}/usage` }), expect: READ },
  { what: 'GET /deployments/:deploymentId/install', call: (w) => ({ method: 'GET', path: `/deployments/${w.deploymentId}/install` }), expect: READ },
  { what: 'POST /deployments/:deploymentId/install/key', mutates: true, call: (w) => ({ method: 'POST', path: `/deployments/${w.deploymentId}/install/key`, body: {} }), expect: { ...READ, owner: 201, admin: 201, member: 201 } },
  { what: 'PUT /deployments/:deploymentId', mutates: true, call: (w) => ({ method: 'PUT', path: `/deployments/${w.deploymentId}`, body: { name: 'Renamed' } }), expect: CHANGE },
  { what: 'PUT /deployments/:deploymentId out of the team', mutates: true, call: (w) => ({ method: 'PUT', path: `/deployments/${w.deploymentId}`, body: { teamId: null } }), expect: { ...CHANGE, admin: 403 } },
  { what: 'DELETE /deployments/:deploymentId', mutates: true, call: (w) => ({ method: 'DELETE', path: `/deployments/${w.deploymentId}` }), expect: CHANGE },
  { what: 'POST /deployments/:deploymentId/adapters', mutates: true, call: (w) => ({ method: 'POST', path: `/deployments/${w.deploymentId}/adapters`, body: { adapter: 'adapter_two', enabled: false } }), expect: CHANGE },
  { what: 'POST /deployments/:deploymentId/deactivate', mutates: true, call: (w) => ({ method: 'POST', path: `/deployments/${w.deploymentId}/deactivate` }), expect: CHANGE },
  { what: 'POST /deployments/:deploymentId/activate', mutates: true, call: (w) => ({ method: 'POST', path: `/deployments/${w.deploymentId}/activate` }), expect: CHANGE },
  { what: 'POST /mcp/:deploymentId (token)', call: (w) => ({ method: 'POST', path: `/mcp/${w.deploymentId}`, body: INITIALIZE }), expect: { ...READ, removed: '404 NOT_FOUND', outsider: '404 NOT_FOUND', anonymous: '401 UNAUTHORIZED' } },
  { what: 'POST /mcp/:deploymentId (API key)', call: (w) => ({ method: 'POST', path: `/mcp/${w.deploymentId}`, body: INITIALIZE, key: true }), expect: { ...READ, removed: '404 NOT_FOUND', outsider: '404 NOT_FOUND', anonymous: '401 UNAUTHORIZED' } },
  { what: 'graphql deployment', call: (w) => ({ graphql: 'query($id: String!) { deployment(deploymentId: $id) { name teamId } }', variables: { id: w.deploymentId } }), expect: { owner: 200, admin: 200, member: 200, ...GRAPHQL_HIDDEN } },
  { what: 'graphql deployments(teamId)', call: (w) => ({ graphql: 'query($t: String) { deployments(teamId: $t) { data { name } } }', variables: { t: w.teamId } }), expect: { owner: 200, admin: 200, member: 200, ...GRAPHQL_HIDDEN } },
  { what: 'graphql deploymentUsage', call: (w) => ({ graphql: 'query($id: String!) { deploymentUsage(deploymentId: $id) { byMember { userId } } }', variables: { id: w.deploymentId } }), expect: { owner: 200, admin: 200, member: 200, ...GRAPHQL_HIDDEN } },
  { what: 'graphql updateDeployment', mutates: true, call: (w) => ({ graphql: 'mutation($id: String!) { updateDeployment(deploymentId: $id, name: "Renamed") { name } }', variables: { id: w.deploymentId } }), expect: { owner: 200, admin: 200, member: '200 FORBIDDEN', ...GRAPHQL_HIDDEN } },
  { what: 'graphql deleteDeployment', mutates: true, call: (w) => ({ graphql: 'mutation($id: String!) { deleteDeployment(deploymentId: $id) { deleted } }', variables: { id: w.deploymentId } }), expect: { owner: 200, admin: 200, member: '200 FORBIDDEN', ...GRAPHQL_HIDDEN } },
];

async function seedTeamWorld(t: TestApp): Promise<TeamWorld> {
  const prefix = `tm-${randomBytes(4).toString('hex')}`;
  const w = await seedTeamDeploymentWorld(t, prefix);
  const removedEmail = `${prefix}-removed@example.com`;
  const removed = await t.token(removedEmail);
  const removedId = await addMember(t, w.tokens.owner, w.teamId, { token: removed, email: removedEmail });
  const keyOf = async (token: string, deploymentIds: string[]) => {
    const res = await t.call('POST', '/v1/api-keys', { token, body: { name: 'Matrix', scope: 'mcp', deploymentIds } });
    expect(res.status, res.text).toBe(201);
    return res.body.data.secret as string;
  };
  const keys = {
    owner: await keyOf(w.tokens.owner, [w.deploymentId]),
    admin: await keyOf(w.tokens.admin, [w.deploymentId]),
    member: await keyOf(w.tokens.member, [w.deploymentId]),
    removed: await keyOf(removed, [w.deploymentId]),
    outsider: await keyOf(w.tokens.outsider, []),
  };
  const gone = await t.call('DELETE', `/v1/teams/${w.teamId}/members/${removedId}`, { token: w.tokens.owner });
  expect(gone.status, gone.text).toBe(200);
  return { ...w, removed, keys };
}

describe('access matrix: a team’s deployment', () => {
  function callAs(t: TestApp, row: TeamRow, w: TeamWorld, caller: TeamCaller): Promise<CallResult> {
    const spec = row.call(w);
    const token = caller === 'anonymous' ? null : caller === 'removed' ? w.removed : w.tokens[caller];
    if ('graphql' in spec) return t.graphql(spec.graphql, spec.variables, token);
    const credential = spec.key && caller !== 'anonymous' ? w.keys[caller] : token;
    const headers = spec.path.startsWith('/mcp/') ? { accept: 'application/json, text/event-stream' } : undefined;
    return t.call(spec.method, `/v1${spec.path}`, { token: credential, body: spec.body, headers });
  }

  /** The answer's status, and its error code when the row pins one (as expectAnswer above). */
  function expectTeamAnswer(res: CallResult, expected: Expected, what: string): void {
    const [status, code] = typeof expected === 'number' ? [expected, undefined] : [Number(expected.split(' ')[0]), expected.split(' ')[1]];
    expect(res.status, `${what}: ${res.text.slice(0, 400)}`).toBe(status);
    const body = res.body as any;
    const actualCode = body?.jsonrpc ? body?.error?.data?.code : (body?.error?.code ?? body?.errors?.[0]?.extensions?.code);
    if (code) expect(actualCode, `${what}: ${res.text.slice(0, 400)}`).toBe(code);
    else if (status < 300) expect(body?.errors ?? body?.error, `${what}: ${res.text.slice(0, 400)}`).toBeUndefined();
    if (status === 403 && !code) expect(body.error.details.reason, what).toBe('team_role');
  }

  const deploymentAsOwnerSees = async (t: TestApp, w: TeamWorld) =>
    (await t.call('GET', `/v1/deployments/${w.deploymentId}`, { token: w.tokens.owner })).text;

  for (const [i, row] of TEAM_DEPLOYMENT_MATRIX.entries()) {
    const summary = (Object.entries(row.expect) as [TeamCaller, Expected][]).map(([c, e]) => `${c} ${e}`).join(', ');
    // The first row seeds the shared world: on a loaded machine, more than the default test time.
    const timeout = i === 0 ? 180_000 : undefined;
    test(
      `${row.what}: ${summary}`,
      async ({ service: t, sharedTeam }) => {
        const w = row.mutates ? await seedTeamWorld(t) : sharedTeam;
        const before = await deploymentAsOwnerSees(t, w);
        const refused = (['anonymous', 'outsider', 'removed', 'member'] as const).filter(
          (c) => Number(String(row.expect[c]).split(' ')[0]) >= 300 || String(row.expect[c]).includes(' '),
        );
        for (const caller of refused) expectTeamAnswer(await callAs(t, row, w, caller), row.expect[caller], `${caller} ${row.what}`);
        expect(await deploymentAsOwnerSees(t, w), `${row.what}: a refused call changed the deployment`).toBe(before);
        for (const caller of (['member', 'admin'] as const).filter((c) => !refused.includes(c as never))) {
          expectTeamAnswer(await callAs(t, row, w, caller), row.expect[caller], `${caller} ${row.what}`);
        }
        // The owner on a world of their own when the admin's call changed this one.
        const ownersWorld = row.mutates ? await seedTeamWorld(t) : w;
        expectTeamAnswer(await callAs(t, row, ownersWorld, 'owner'), row.expect.owner, `owner ${row.what}`);
      },
      timeout,
    );
  }
});
