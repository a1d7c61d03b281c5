import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { TextReply } from '../http/text-response.js';
import { apiConsent, API_SCOPE, isApiResource } from './device-flow.js';
import { authorizationProblemPage, consentPage } from './pages.js';
import { deploymentOfResource, MCP_SCOPE } from './resource.js';
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

export function createInteractions(deps: {
  provider: Provider;
  config: Config;
  browser: BrowserSignIn;
  deploymentName: (deploymentId: string, userId: string) => Promise<string | null>;
}) {
  const { provider, config, browser } = deps;

  async function finish(req: IncomingMessage, res: ServerResponse, result: InteractionResults): Promise<void> {
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  return {
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
          // The command-line tool (the only client the API resource is given to): its device sign-in
          // was confirmed on the code page just before; its browser sign-in asks here.
          if (details.returnTo.includes('/oauth/device/')) return finish(req, res, { consent: { grantId: await grantFor(details) } });
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
        const name = await deps.deploymentName(deploymentId, viewer.userId);
        if (name === null) {
          return send(
            res,
            authorizationProblemPage(
              'Deployment not found',
              `You have no deployment '${deploymentId}'. Sign in with the account that owns it.`,
              404,
            ),
          );
        }
        const client = await provider.Client.find(String(details.params.client_id));
        const redirectUri = String(details.params.redirect_uri ?? '');
        const parsed = URL.parse(redirectUri);
        return send(
          res,
          consentPage({
            action: `${INTERACTION_PATH}/${uid}`,
            clientName: client?.clientName ?? String(details.params.client_id),
            clientUri: client?.clientUri ?? null,
            redirectHost: parsed ? parsed.host || `${parsed.protocol}//` : redirectUri,
            redirectUri,
            deploymentName: name,
            endpoint: resource!,
            email: viewer.email,
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
      return finish(req, res, { consent: { grantId: await grantFor(details) } });
    },
  };

  async function grantFor(details: Awaited<ReturnType<Provider['interactionDetails']>>): Promise<string> {
    const resource = String(details.params.resource);
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    grant.addResourceScope(resource, isApiResource(config.publicBaseUrl, resource) ? API_SCOPE : MCP_SCOPE);
    return grant.save();
  }
}
