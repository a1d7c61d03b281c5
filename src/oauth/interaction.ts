import type { AuditEvent } from '../teams/audit.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { TextReply } from '../http/text-response.js';
import type { OAuthStore } from '../oauth-store/index.js';
import { apiConsent, API_SCOPE, isApiResource } from './device-flow.js';
import { authorizationProblemPage, consentPage, type ClientShown } from './pages.js';
import { baseUrlForms, deploymentOfResource, endpointResource, MCP_SCOPE } from './resource.js';
import type { BrowserSignIn } from './sign-in.js';

/**
 * The authorization server's interactions: signing the user in (always through the browser sign-in
 * of src/oauth/sign-in.ts, which comes back here) and the consent page naming the client and the
 * deployment, which the user allows or denies.
 */

export const INTERACTION_PATH = '/oauth/interaction';

function send(res: ServerResponse, reply: TextReply): void {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(reply.headers ?? {})) headers[k] = String(v);
  res.writeHead(reply.status, headers);
  res.end(reply.text);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

function deploymentNotFound(deploymentId: string): TextReply {
  return authorizationProblemPage(
    'Deployment not found',
    `You have no deployment '${deploymentId}'. Sign in with the account that owns it, or check the endpoint URL configured in your IDE.`,
    404,
  );
}

interface InteractionContext {
  provider: Provider;
  config: Config;
  browser: BrowserSignIn;
  store: OAuthStore;
  /** Writes an entry in a person's audit log (the team service's `record`). */
  record: (event: AuditEvent) => Promise<void>;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
type BrowserUser = NonNullable<Awaited<ReturnType<BrowserSignIn['currentBrowserUser']>>>;

/** One interaction's request: its node:http pair, the service's view of it, the details and the signed-in user. */
interface Step {
  req: IncomingMessage;
  res: ServerResponse;
  incoming: Incoming;
  uid: string;
  details: Details;
  viewer: BrowserUser;
}

async function finish(ctx: InteractionContext, step: Step, result: InteractionResults): Promise<void> {
  await ctx.provider.interactionFinished(step.req, step.res, result, { mergeWithLastSubmission: false });
}

/** How the pages name the client of an authorization's parameters, and the host it returns to. */
async function clientShown(
  ctx: InteractionContext,
  params: Record<string, unknown>,
): Promise<{ shown: ClientShown; redirectHost: string }> {
  const clientId = String(params.client_id);
  const client = await ctx.provider.Client.find(clientId);
  const redirectUri = String(params.redirect_uri ?? '');
  const parsed = URL.parse(redirectUri);
  const redirectHost = parsed ? parsed.host || `${parsed.protocol}//` : redirectUri;
  const documentHost = /^https:\/\//.test(clientId) ? URL.parse(clientId)?.host : undefined;
  const shown: ClientShown = {
    name: (client?.clientName ?? documentHost ?? redirectHost).slice(0, 80),
    source: documentHost ? 'document' : 'registered',
    host: documentHost ?? redirectHost,
  };
  return { shown, redirectHost };
}

/**
 * The client of the authorization whose page `returnTo` is, for the sign-in page shown before it;
 * null for any other path, or an authorization unknown or expired.
 */
async function describeReturn(ctx: InteractionContext, returnTo: string): Promise<ClientShown | null> {
  const match = /^\/oauth\/interaction\/([^/?#]+)$/.exec(returnTo);
  if (!match) return null;
  const interaction = await ctx.provider.Interaction.find(match[1]!);
  if (!interaction?.params.client_id) return null;
  const { shown } = await clientShown(ctx, interaction.params);
  const resource = typeof interaction.params.resource === 'string' ? interaction.params.resource : null;
  if (!isApiResource(ctx.config.publicBaseUrl, resource)) return shown;
  return { ...shown, opens: 'api', device: interaction.returnTo.includes('/oauth/device/') };
}

/** The command-line tool's grant: the API resource, scope `api` (one per signed-in machine, so earlier ones stay). */
async function grantApi(ctx: InteractionContext, details: Details, userId: string): Promise<string> {
  const grant = new ctx.provider.Grant({ accountId: userId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[] };
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  grant.addResourceScope(String(details.params.resource), API_SCOPE);
  return connectionGranted(ctx, userId, await grant.save(), details.params);
}

/** A consent given: an `oauth_connection.granted` entry in the person's own log; the grant's id. */
async function connectionGranted(ctx: InteractionContext, userId: string, grantId: string, params: Details['params']): Promise<string> {
  await ctx.record({
    userId,
    action: 'oauth_connection.granted',
    actorUserId: userId,
    targetType: 'connected_app',
    targetId: grantId,
    details: { clientId: String(params.client_id), resource: String(params.resource ?? '') },
  });
  return grantId;
}

/** The consent page of an authorization for a deployment's tool endpoint. */
async function deploymentConsent(ctx: InteractionContext, step: Step, resource: string | null): Promise<void> {
  const { details, viewer, uid } = step;
  const deploymentId = resource ? deploymentOfResource(ctx.config.publicBaseUrl, resource) : null;
  if (!deploymentId) {
    return finish(ctx, step, {
      error: 'invalid_target',
      error_description: `resource must name one deployment's tool endpoint, ${ctx.config.publicBaseUrl}/mcp/<deploymentId>`,
    });
  }
  const name = await ctx.store.deploymentNameFor(deploymentId, viewer.userId);
  if (name === null) return send(step.res, deploymentNotFound(deploymentId));
  const { shown, redirectHost } = await clientShown(ctx, details.params);
  const scopes = String(details.params.scope ?? '').split(' ');
  return send(
    step.res,
    consentPage({
      action: `${INTERACTION_PATH}/${uid}`,
      client: shown,
      redirectHost,
      redirectUri: String(details.params.redirect_uri ?? ''),
      deploymentName: name,
      endpoint: resource!,
      email: viewer.email,
      wantsAccountId: scopes.includes('openid'),
    }),
  );
}

/** The interaction's page: the sign-in at the authorization server, or the consent page. */
async function showInteraction(ctx: InteractionContext, step: Step): Promise<void> {
  const { details, viewer, uid } = step;
  // Signed in here but not (or as someone else) at the authorization server: sign it in as the browser's user.
  if (details.prompt.name === 'login' || details.session?.accountId !== viewer.userId) {
    return finish(ctx, step, { login: { accountId: viewer.userId } });
  }
  const resource = typeof details.params.resource === 'string' ? details.params.resource : null;
  if (!isApiResource(ctx.config.publicBaseUrl, resource)) return deploymentConsent(ctx, step, resource);
  // The command-line tool (the only client given the API resource): its device sign-in was
  // confirmed on the code page just before; its browser sign-in asks here.
  if (details.returnTo.includes('/oauth/device/'))
    return finish(ctx, step, { consent: { grantId: await grantApi(ctx, details, viewer.userId) } });
  return send(
    step.res,
    apiConsent({ action: `${INTERACTION_PATH}/${uid}`, email: viewer.email, redirectUri: String(details.params.redirect_uri ?? '') }),
  );
}

/** The user's answer on the consent page: allowed (a grant) or denied. */
async function answerConsent(ctx: InteractionContext, step: Step, action: string): Promise<void> {
  const { res, details, viewer, uid, incoming } = step;
  try {
    ctx.browser.assertSameOrigin(incoming);
  } catch (error) {
    if (error instanceof AppError) return send(res, authorizationProblemPage('Refused', error.message, 403));
    throw error;
  }
  if (details.session?.accountId !== viewer.userId) return redirect(res, `${INTERACTION_PATH}/${uid}`);
  if (action === 'deny') return finish(ctx, step, { error: 'access_denied', error_description: 'the user denied the connection' });
  const { config, store } = ctx;
  const resource = String(details.params.resource);
  if (isApiResource(config.publicBaseUrl, resource))
    return finish(ctx, step, { consent: { grantId: await grantApi(ctx, details, viewer.userId) } });
  // The same check as the page's: the consent is for a deployment this user may connect to.
  const deploymentId = deploymentOfResource(config.publicBaseUrl, resource);
  if (!deploymentId || (await store.deploymentNameFor(deploymentId, viewer.userId)) === null)
    return send(res, deploymentNotFound(deploymentId ?? resource));
  const clientId = String(details.params.client_id);
  const grant = new ctx.provider.Grant({ accountId: viewer.userId, clientId });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  grant.addResourceScope(resource, MCP_SCOPE);
  const grantId = await grant.save();
  // One connection per client and deployment: connecting the same client to the same
  // deployment again replaces the earlier one (connecting it to another deployment does not),
  // whichever of the endpoint's loopback forms either connection was made through.
  const resources = baseUrlForms(config.publicBaseUrl).map((base) => endpointResource(base, deploymentId));
  await store.replaceEarlierGrants({ accountId: viewer.userId, clientId, resources: [resource, ...resources], keep: grantId });
  await connectionGranted(ctx, viewer.userId, grantId, details.params);
  return finish(ctx, step, { consent: { grantId } });
}

/** Answers a request under INTERACTION_PATH (the library's interaction, which it sent the browser to). */
async function handleInteraction(ctx: InteractionContext, req: IncomingMessage, res: ServerResponse, incoming: Incoming): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const match = /^\/oauth\/interaction\/([^/]+)(?:\/(confirm|deny))?$/.exec(path);
  if (!match) return send(res, authorizationProblemPage('Not found', 'There is no such page.', 404));
  const [, uid, action] = match;
  let details: Details;
  try {
    details = await ctx.provider.interactionDetails(req, res);
  } catch {
    return send(
      res,
      authorizationProblemPage(
        'This authorization has expired',
        'It was started more than 15 minutes ago, in another browser, or has already finished. Start the connection again from your IDE.',
        400,
      ),
    );
  }
  if (details.uid !== uid)
    return send(res, authorizationProblemPage('This authorization has expired', 'Start the connection again from your IDE.', 400));
  const viewer = await ctx.browser.currentBrowserUser(incoming);
  if (!viewer) return redirect(res, ctx.browser.signInPath(`${INTERACTION_PATH}/${uid}`));
  const step: Step = { req, res, incoming, uid: uid!, details, viewer };
  if (req.method === 'GET') return showInteraction(ctx, step);
  if (req.method !== 'POST' || !action)
    return send(res, authorizationProblemPage('Not allowed', `${req.method} is not allowed here.`, 405));
  return answerConsent(ctx, step, action);
}

export interface Interactions {
  describeReturn(returnTo: string): Promise<ClientShown | null>;
  handle(req: IncomingMessage, res: ServerResponse, incoming: Incoming): Promise<void>;
}

export function createInteractions(deps: InteractionContext): Interactions {
  return {
    describeReturn: (returnTo) => describeReturn(deps, returnTo),
    handle: (req, res, incoming) => handleInteraction(deps, req, res, incoming),
  };
}
