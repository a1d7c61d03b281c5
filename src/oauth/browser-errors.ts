import type { KoaContextWithOIDC } from 'oidc-provider';
import type { TextReply } from '../http/text-response.js';
import { oauthErrorPage, pageSecurityHeaders } from './pages.js';
import { isNativeRedirect } from './redirect-uris.js';

/**
 * What a person sees when the authorization server cannot go on: a page of the service saying what
 * happened and what to do, naming the application, never the library's raw JSON. Programs (the
 * token, registration and revocation endpoints) keep their JSON errors as the protocol says.
 *
 * Before consent, an error is sent back to the client's redirect URI only when that URI is one of
 * the user's own machine (loopback) or an IDE's scheme; any other client gets the page instead, so
 * the authorization endpoint cannot be used to bounce a browser to a site of someone's choosing
 * (RFC 9700, 4.11.2, "authorization server as open redirector").
 */

interface OAuthErrorOut {
  error: string;
  error_description?: string;
}

interface Described {
  title: string;
  message: string;
  todo: string;
  status: number;
}

const AGAIN = 'Start the connection again from your IDE.';

export function describeOAuthError(out: OAuthErrorOut): Described {
  const detail = out.error_description ? ` (${out.error_description.slice(0, 300)})` : '';
  switch (out.error) {
    case 'invalid_client':
      return /metadata document/.test(out.error_description ?? '')
        ? {
            title: 'The application could not be identified',
            message: `The application names itself by a document on its own web site, and the service could not read a valid one${detail}.`,
            todo: `${AGAIN} If it keeps happening, the application's host may be unreachable from this service: ask its operator to add a copy of the document (see the operations guide).`,
            status: 400,
          }
        : {
            title: 'Unknown application',
            message: `The application is not registered with this service, or its registration has expired${detail}.`,
            todo: `${AGAIN} It registers itself again when it connects.`,
            status: 400,
          };
    case 'invalid_client_metadata':
      return {
        title: 'The application is not accepted',
        message: `Its registration breaks the service's rules${detail}.`,
        todo: "Report this to the application's maker.",
        status: 400,
      };
    case 'invalid_redirect_uri':
      return {
        title: 'The application asked to return somewhere it did not register',
        message: `The address the browser would be sent back to is not one the application registered${detail}. Nothing was sent there.`,
        todo: `${AGAIN} If it keeps happening, report it to the application's maker.`,
        status: 400,
      };
    case 'invalid_target':
      return {
        title: 'Not a tool endpoint of this service',
        message: `The application asked for access to something that is not a deployment's tool endpoint${detail}.`,
        todo: 'Check the endpoint URL configured in your IDE (it ends in /v1/mcp/<deploymentId>), then connect again.',
        status: 400,
      };
    case 'access_denied':
      return { title: 'Connection refused', message: 'The connection was not allowed.', todo: AGAIN, status: 403 };
    case 'login_required':
    case 'consent_required':
    case 'interaction_required':
      return {
        title: 'You need to sign in and allow the connection',
        message: 'The application asked to connect without showing you anything, which this service does not allow.',
        todo: AGAIN,
        status: 400,
      };
    case 'server_error':
      return {
        title: 'Something went wrong',
        message: 'The service could not finish the authorization.',
        todo: `${AGAIN} If it keeps happening, contact the operator of this service.`,
        status: 500,
      };
    default:
      return {
        title: 'The authorization request is not valid',
        message: `The application's request could not be used${detail}.`,
        todo: `${AGAIN} If it keeps happening, report it to the application's maker.`,
        status: 400,
      };
  }
}

function clientOf(ctx: KoaContextWithOIDC): { name: string | null; host: string | null } | null {
  const oidc = ctx.oidc as KoaContextWithOIDC['oidc'] | undefined;
  const client = oidc?.client;
  const clientId = client?.clientId ?? (typeof oidc?.params?.client_id === 'string' ? oidc.params.client_id : null);
  const redirect = typeof oidc?.params?.redirect_uri === 'string' ? URL.parse(oidc.params.redirect_uri) : null;
  const documentHost = clientId && /^https:\/\//.test(clientId) ? (URL.parse(clientId)?.host ?? null) : null;
  const name = client?.clientName ? String(client.clientName).slice(0, 80) : null;
  const host = documentHost ?? (redirect ? redirect.host || redirect.protocol : null);
  return name || host ? { name, host } : null;
}

function write(ctx: KoaContextWithOIDC, reply: TextReply): void {
  ctx.status = reply.status;
  ctx.remove('location');
  for (const [name, value] of Object.entries(reply.headers)) ctx.set(name, value);
  ctx.body = reply.text;
}

/** oidc-provider's renderError: the service's error page. */
export async function renderOAuthError(ctx: KoaContextWithOIDC, out: OAuthErrorOut): Promise<void> {
  const described = describeOAuthError(out);
  write(
    ctx,
    oauthErrorPage({ ...described, status: ctx.status >= 400 ? ctx.status : described.status, code: out.error, client: clientOf(ctx) }),
  );
}

function carriesError(target: URL): boolean {
  return target.searchParams.has('error') || new URLSearchParams(target.hash.slice(1)).has('error');
}

/** Koa middleware in front of the library: response modes, pre-consent error redirects, page headers. */
export function browserErrorMiddleware() {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    const authorizing = ctx.path === '/oauth/authorize';
    const mode = ctx.query.response_mode;
    if (authorizing && mode !== undefined && mode !== 'query') {
      // Other modes answer with a self-submitting page or a fragment; MCP clients use the query.
      write(
        ctx,
        oauthErrorPage({
          ...describeOAuthError({ error: 'invalid_request', error_description: 'only response_mode=query is supported' }),
          code: 'invalid_request',
        }),
      );
      return;
    }
    // The device flow's link with the code in it answers with the library's self-submitting form,
    // whose inline script the library allows by adding its hash to a CSP already set: so set it first.
    if (ctx.method === 'GET' && ctx.path === '/oauth/device')
      for (const [name, value] of Object.entries(pageSecurityHeaders())) ctx.set(name, value);
    await next();
    if (authorizing && ctx.status >= 300 && ctx.status < 400) {
      const target = URL.parse(ctx.response.get('location'));
      if (target && carriesError(target) && !isNativeRedirect(target.href)) {
        const out = {
          error: target.searchParams.get('error') ?? 'invalid_request',
          error_description: target.searchParams.get('error_description') ?? undefined,
        };
        const described = describeOAuthError(out);
        write(ctx, oauthErrorPage({ ...described, code: out.error, client: clientOf(ctx) }));
        return;
      }
    }
    // Any page the library itself writes gets the service's page protections too.
    if (/html/.test(ctx.response.get('content-type') ?? '') && !ctx.response.get('content-security-policy')) {
      for (const [name, value] of Object.entries(pageSecurityHeaders())) ctx.set(name, value);
    }
  };
}
