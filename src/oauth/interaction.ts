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

export function createInteractions(deps: { provider: Provider; config: Config; browser: BrowserSignIn; store: OAuthStore }) {
  const { provider, config, browser } = deps;

  async function finish(req: IncomingMessage, res: ServerResponse, result: InteractionResults): Promise<void> {
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  /** How the pages name the client of an authorization's parameters, and the host it returns to. */
  async function clientShown(params: Record<string, unknown>): Promise<{ shown: ClientShown; redirectHost: string }> {
    const clientId = String(params.client_id);
    const client = await provider.Client.find(clientId);
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

  return {
    /**
     * The client of the authorization whose page `returnTo` is, for the sign-in page shown before
     * it; null for any other path, or an authorization unknown or expired.
     */
    async describeReturn(returnTo: string): Promise<ClientShown | null> {
      const match = /^\/oauth\/interaction\/([^/?#]+)$/.exec(returnTo);
      if (!match) return null;
      const interaction = await provider.Interaction.find(match[1]!);
      if (!interaction?.params.client_id) return null;
      const { shown } = await clientShown(interaction.params);
      const resource = typeof interaction.params.resource === 'string' ? interaction.params.resource : null;
      if (!isApiResource(config.publicBaseUrl, resource)) return shown;
      return { ...shown, opens: 'api', device: interaction.returnTo.includes('/oauth/device/') };
    },
    async handle(req: IncomingMessage, res: ServerResponse, incoming: Incoming): Promise<void> {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const match = /^\/oauth\/interaction\/([^/]+)(?:\/(confirm|deny))?$/.exec(path);
      if (!match) return send(res, authorizationProblemPage('Not found', 'There is no such page.', 404));
      const [, uid, action] = match;
      let details;
      try {
        details = await provider.interactionDetails(req, res);
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
      const viewer = await browser.currentBrowserUser(incoming);
      if (!viewer) return redirect(res, browser.signInPath(`${INTERACTION_PATH}/${uid}`));

      if (req.method === 'GET') {
        // Signed in here but not (or as someone else) at the authorization server: sign it in as the browser's user.
        if (details.prompt.name === 'login' || details.session?.accountId !== viewer.userId) {
          return finish(req, res, { login: { accountId: viewer.userId } });
        }
        const resource = typeof details.params.resource === 'string' ? details.params.resource : null;
        if (isApiResource(config.publicBaseUrl, resource)) {
          // The command-line tool (the only client given the API resource): its device sign-in was
          // confirmed on the code page just before; its browser sign-in asks here.
          if (details.returnTo.includes('/oauth/device/'))
            return finish(req, res, { consent: { grantId: await grantApi(details, viewer.userId) } });
          return send(
            res,
            apiConsent({
              action: `${INTERACTION_PATH}/${uid}`,
              email: viewer.email,
              redirectUri: String(details.params.redirect_uri ?? ''),
            }),
          );
        }
        const deploymentId = resource ? deploymentOfResource(config.publicBaseUrl, resource) : null;
        if (!deploymentId) {
          return finish(req, res, {
            error: 'invalid_target',
            error_description: `resource must name one deployment's tool endpoint, ${config.publicBaseUrl}/mcp/<deploymentId>`,
          });
        }
        const name = await deps.store.deploymentNameFor(deploymentId, viewer.userId);
        if (name === null) return send(res, deploymentNotFound(deploymentId));
        const redirectUri = String(details.params.redirect_uri ?? '');
        const { shown, redirectHost } = await clientShown(details.params);
        const scopes = String(details.params.scope ?? '').split(' ');
        return send(
          res,
          consentPage({
            action: `${INTERACTION_PATH}/${uid}`,
            client: shown,
            redirectHost,
            redirectUri,
            deploymentName: name,
            endpoint: resource!,
            email: viewer.email,
            wantsAccountId: scopes.includes('openid'),
          }),
        );
      }

      if (req.method !== 'POST' || !action)
        return send(res, authorizationProblemPage('Not allowed', `${req.method} is not allowed here.`, 405));
      try {
        browser.assertSameOrigin(incoming);
      } catch (error) {
        if (error instanceof AppError) return send(res, authorizationProblemPage('Refused', error.message, 403));
        throw error;
      }
      if (details.session?.accountId !== viewer.userId) return redirect(res, `${INTERACTION_PATH}/${uid}`);
      if (action === 'deny') return finish(req, res, { error: 'access_denied', error_description: 'the user denied the connection' });
      const resource = String(details.params.resource);
      if (isApiResource(config.publicBaseUrl, resource))
        return finish(req, res, { consent: { grantId: await grantApi(details, viewer.userId) } });
      // The same check as the page's: the consent is for a deployment this user may connect to.
      const deploymentId = deploymentOfResource(config.publicBaseUrl, resource);
      if (!deploymentId || (await deps.store.deploymentNameFor(deploymentId, viewer.userId)) === null)
        return send(res, deploymentNotFound(deploymentId ?? resource));
      const clientId = String(details.params.client_id);
      const grant = new provider.Grant({ accountId: viewer.userId, clientId });
      const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      grant.addResourceScope(resource, MCP_SCOPE);
      const grantId = await grant.save();
      // One connection per client and deployment: connecting the same client to the same
      // deployment again replaces the earlier one (connecting it to another deployment does not),
      // whichever of the endpoint's loopback forms either connection was made through.
      const resources = baseUrlForms(config.publicBaseUrl).map((base) => endpointResource(base, deploymentId));
      await deps.store.replaceEarlierGrants({ accountId: viewer.userId, clientId, resources: [resource, ...resources], keep: grantId });
      return finish(req, res, { consent: { grantId } });
    },
  };

  /** The command-line tool's grant: the API resource, scope `api` (one per signed-in machine, so earlier ones stay). */
  async function grantApi(details: Awaited<ReturnType<Provider['interactionDetails']>>, userId: string): Promise<string> {
    const grant = new provider.Grant({ accountId: userId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as { missingOIDCScope?: string[] };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    grant.addResourceScope(String(details.params.resource), API_SCOPE);
    return grant.save();
  }
}
