import { existsSync } from 'node:fs';
import type { EnvReader } from './config-env.js';

/**
 * The sign-in and OAuth sections of the configuration (src/config.ts): the OpenID provider, e-mail
 * and GitHub sign-in, development sign-in, and the keys and client metadata of the service's own
 * authorization server.
 */

/** The OpenID provider whose ID tokens the service accepts. */
export interface OidcSettings {
  issuer?: string;
  audience?: string;
  jwksUrl?: string;
}

/** GitHub sign-in: the OAuth App, and GitHub's (or a GitHub Enterprise Server's) web and API addresses. */
export interface GithubSettings {
  clientId: string;
  clientSecret: string;
  url: string;
  apiUrl: string;
}

/** How people sign in: what the provider, e-mail and GitHub variables configure. */
export interface SignInSection {
  oidc: OidcSettings;
  /** The service as the provider's client, before it is known that OIDC_ISSUER is set. */
  oidcClientId: string | undefined;
  oidcClientSecret: string | null;
  smtpUrl: string | null;
  mailFrom: string | null;
  github: GithubSettings | null;
  devAuth: boolean;
}

export function readSignIn(r: EnvReader, production: boolean): SignInSection {
  const { problems } = r;
  const oidc = { issuer: r.str('OIDC_ISSUER'), audience: r.str('OIDC_AUDIENCE'), jwksUrl: r.url('OIDC_JWKS_URL', ['http:', 'https:']) };
  const smtpUrl = r.url('SMTP_URL', ['smtp:', 'smtps:']) ?? null;
  const mailFrom = r.str('MAIL_FROM') ?? null;
  if (mailFrom !== null && !/^(?:[^<>@\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(mailFrom))
    problems.push(`MAIL_FROM must be an address, or a name and an address in angle brackets (got '${mailFrom}')`);
  if (mailFrom !== null && smtpUrl === null) problems.push('MAIL_FROM is set but SMTP_URL is not: e-mail sign-in needs a mail server');
  const github = githubConfig(r);
  // Browser sign-in that needs no OpenID provider: then the service accepts no ID tokens of its own.
  const ownSignIn = smtpUrl !== null || github !== null;
  const devAuthRaw = r.str('DEV_AUTH');
  if (devAuthRaw !== undefined && !['on', 'off'].includes(devAuthRaw)) problems.push(`DEV_AUTH must be on or off (got '${devAuthRaw}')`);
  const devAuth = devAuthRaw === undefined ? !production : devAuthRaw === 'on';
  if (devAuth && production) problems.push('DEV_AUTH=on is refused when NODE_ENV=production');
  if (oidc.issuer) {
    if (!oidc.audience) problems.push('OIDC_AUDIENCE must be set when OIDC_ISSUER is set');
    if (!oidc.jwksUrl) problems.push('OIDC_JWKS_URL must be set when OIDC_ISSUER is set');
  } else if ((production || !devAuth) && !ownSignIn) {
    const missing = ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_JWKS_URL'].filter((n) => !r.str(n));
    problems.push(
      `${missing.join(', ')} (or SMTP_URL for e-mail sign-in, or GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET) must be set ${production ? 'in production' : 'when DEV_AUTH=off'}: no way to sign in is configured`,
    );
  }

  const oidcClientId = r.str('OIDC_CLIENT_ID');
  const oidcClientSecret = r.str('OIDC_CLIENT_SECRET') ?? null;
  if (oidcClientId && !oidc.issuer)
    problems.push('OIDC_CLIENT_ID is set but OIDC_ISSUER is not: browser sign-in needs the provider it is a client of');
  if (oidcClientSecret && !oidcClientId) problems.push('OIDC_CLIENT_SECRET is set but OIDC_CLIENT_ID is not');
  return { oidc, oidcClientId, oidcClientSecret, smtpUrl, mailFrom, github, devAuth };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET and GITHUB_URL (https, or http on this machine only). */
function githubConfig(r: EnvReader): GithubSettings | null {
  const { problems } = r;
  const clientId = r.str('GITHUB_CLIENT_ID');
  const clientSecret = r.str('GITHUB_CLIENT_SECRET');
  const raw = r.str('GITHUB_URL');
  if (!clientId && !clientSecret) {
    if (raw) problems.push('GITHUB_URL is set but GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are not: GitHub sign-in needs both');
    return null;
  }
  if (!clientId || !clientSecret) {
    problems.push(`${clientId ? 'GITHUB_CLIENT_SECRET' : 'GITHUB_CLIENT_ID'} must be set too: GitHub sign-in needs both`);
    return null;
  }
  const parsed = URL.parse(raw ?? 'https://github.com');
  if (!parsed || parsed.search || parsed.hash || parsed.username || parsed.password) {
    problems.push(
      `GITHUB_URL must be the address of GitHub or of a GitHub Enterprise Server, such as https://github.example.com (got '${raw}')`,
    );
    return null;
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) {
    problems.push(`GITHUB_URL must use https (http only on this machine: 127.0.0.1, localhost, [::1]) (got '${raw}')`);
    return null;
  }
  const url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  const apiUrl = url === 'https://github.com' ? 'https://api.github.com' : `${url}/api/v3`;
  return { clientId, clientSecret, url, apiUrl };
}

/** The keys of the tool endpoint's sessions and of the authorization server, and its client metadata. */
export interface OAuthSection {
  mcpSessionSecret: string | null;
  oauthJwks: { keys: Record<string, unknown>[] } | null;
  oauthClientMetadataLoopback: boolean;
  oauthClientMetadataDir: string | null;
  oauthClientMetadataFetch: boolean;
}

export function readOAuth(r: EnvReader, production: boolean): OAuthSection {
  const { problems } = r;
  const mcpSessionSecret = r.str('MCP_SESSION_SECRET') ?? null;
  if (mcpSessionSecret !== null && mcpSessionSecret.length < 32) problems.push('MCP_SESSION_SECRET must be at least 32 characters');
  if (mcpSessionSecret === null && production)
    problems.push('MCP_SESSION_SECRET must be set in production: every instance must sign tool-endpoint sessions with the same key');

  const oauthJwks = readOAuthJwks(r, production);
  const loopbackMetadata = r.str('OAUTH_CLIENT_METADATA_LOOPBACK');
  if (loopbackMetadata !== undefined && !['on', 'off'].includes(loopbackMetadata))
    problems.push(`OAUTH_CLIENT_METADATA_LOOPBACK must be on or off (got '${loopbackMetadata}')`);
  if (loopbackMetadata === 'on' && production)
    problems.push('OAUTH_CLIENT_METADATA_LOOPBACK=on is for tests and refused when NODE_ENV=production');

  const oauthClientMetadataDir = r.str('OAUTH_CLIENT_METADATA_DIR') ?? null;
  if (oauthClientMetadataDir !== null && !existsSync(oauthClientMetadataDir))
    problems.push(`OAUTH_CLIENT_METADATA_DIR names a directory that does not exist (${oauthClientMetadataDir})`);

  const metadataFetch = r.str('OAUTH_CLIENT_METADATA_FETCH');
  if (metadataFetch !== undefined && !['on', 'off'].includes(metadataFetch))
    problems.push(`OAUTH_CLIENT_METADATA_FETCH must be on or off (got '${metadataFetch}')`);
  return {
    mcpSessionSecret,
    oauthJwks,
    oauthClientMetadataLoopback: loopbackMetadata === 'on',
    oauthClientMetadataDir,
    oauthClientMetadataFetch: metadataFetch !== 'off',
  };
}

/** OAUTH_JWKS: a JSON Web Key Set of private keys; required in production. */
function readOAuthJwks(r: EnvReader, production: boolean): OAuthSection['oauthJwks'] {
  const jwksRaw = r.str('OAUTH_JWKS');
  if (jwksRaw !== undefined) {
    try {
      const parsed = JSON.parse(jwksRaw) as { keys?: unknown };
      if (
        !Array.isArray(parsed.keys) ||
        parsed.keys.length === 0 ||
        !parsed.keys.every((k) => typeof k === 'object' && k !== null && 'd' in k)
      )
        throw new Error('no private keys');
      return parsed as { keys: Record<string, unknown>[] };
    } catch {
      r.problems.push('OAUTH_JWKS must be a JSON Web Key Set ({"keys":[...]}) of private keys (each with its "d")');
    }
  } else if (production) {
    r.problems.push('OAUTH_JWKS must be set in production: every instance must sign with the same OAuth keys');
  }
  return null;
}
