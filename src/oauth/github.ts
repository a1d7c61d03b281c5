import * as client from 'openid-client';
import type { VerifiedIdentity } from '../auth/viewer.js';
import { AppError } from '../errors.js';

/**
 * The service as an OAuth App of GitHub (or of a GitHub Enterprise Server): GitHub's documented web
 * flow, `${GITHUB_URL}/login/oauth/authorize` with `state` (and PKCE S256), the code exchanged at
 * `${GITHUB_URL}/login/oauth/access_token` with the client secret, then the REST API's `GET /user`
 * and `GET /user/emails`. The OAuth exchange is `openid-client`'s, on a configuration built by hand
 * (GitHub publishes no discovery document).
 */

export interface GitHubOptions {
  clientId: string;
  clientSecret: string;
  /** https://github.com or the Enterprise Server's address. */
  url: string;
  /** https://api.github.com, or `${url}/api/v3`. */
  apiUrl: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** GitHub or its API answered something other than a sign-in: shown to the person as GitHub refusing. */
function refused(message: string, cause?: unknown): AppError {
  return Object.assign(new AppError('UNAUTHORIZED', message, { reason: 'github_refused' }), { cause });
}

interface GitHubUser {
  id: number;
  login: string;
}

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

export function createGitHubClient(options: GitHubOptions) {
  const base = new URL(options.url);
  const config = new client.Configuration(
    {
      issuer: options.url,
      authorization_endpoint: `${options.url}/login/oauth/authorize`,
      token_endpoint: `${options.url}/login/oauth/access_token`,
    },
    options.clientId,
    options.clientSecret,
    client.ClientSecretPost(options.clientSecret),
  );
  // Plain http only to a GitHub stand-in on this machine (the configuration allows nothing else).
  if (base.protocol === 'http:' && LOOPBACK.has(base.hostname)) client.allowInsecureRequests(config);

  async function api<T>(accessToken: string, path: string): Promise<T> {
    const headers = new Headers({
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'workflow-service',
    });
    let response: Response;
    try {
      response = await client.fetchProtectedResource(config, accessToken, new URL(`${options.apiUrl}${path}`), 'GET', undefined, headers);
    } catch (error) {
      throw refused(`GitHub's API could not be reached (${path})`, error);
    }
    if (!response.ok) throw refused(`GitHub's API answered ${response.status} to ${path}`);
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw refused(`GitHub's API answered ${path} with something that is not JSON`, error);
    }
  }

  return {
    /** GitHub's authorization URL for a new sign-in, with what the callback checks. */
    async begin(redirectUri: string): Promise<{ url: string; state: string; codeVerifier: string }> {
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'read:user user:email',
        state,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        allow_signup: 'true',
      });
      return { url: url.href, state, codeVerifier };
    },

    /**
     * Exchanges the callback's code (state and PKCE checked) and reads who signed in: the GitHub
     * user id as the subject, the login as the suggested name and label, and the primary address
     * when GitHub verified it (then it may open the existing account of that address).
     */
    async finish(callbackUrl: URL, checks: { state: string; codeVerifier: string }): Promise<VerifiedIdentity> {
      let accessToken: string;
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          expectedState: checks.state,
          pkceCodeVerifier: checks.codeVerifier,
        });
        accessToken = tokens.access_token;
      } catch (error) {
        const described = error instanceof Error ? error.message : 'the code was not accepted';
        throw refused(`GitHub did not accept the sign-in: ${described}`, error);
      }
      const user = await api<GitHubUser>(accessToken, '/user');
      if (typeof user?.id !== 'number' || typeof user.login !== 'string') throw refused('GitHub sent no user id or login');
      const emails = await api<GitHubEmail[]>(accessToken, '/user/emails');
      const primary = Array.isArray(emails) ? emails.find((e) => e && e.primary && typeof e.email === 'string') : undefined;
      return {
        issuer: options.url,
        subject: String(user.id),
        method: 'github',
        label: user.login,
        name: user.login,
        // An address GitHub has not verified is not taken at all (it would name the account, and
        // could name an operator's address).
        email: primary?.verified === true ? primary.email : null,
        emailVerified: primary?.verified === true,
      };
    },
  };
}

export type GitHubClient = ReturnType<typeof createGitHubClient>;
