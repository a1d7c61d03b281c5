import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';

/**
 * A GitHub Enterprise Server stand-in on loopback, implementing exactly the documented endpoints
 * GitHub sign-in uses: `/login/oauth/authorize` (signs in whoever the test says is at GitHub and
 * redirects back at once, or refuses), `/login/oauth/access_token`, `/api/v3/user` and
 * `/api/v3/user/emails`. It records what it was sent, and refuses a wrong client id, secret, code
 * or PKCE verifier as GitHub does.
 */

interface GitHubAccount {
  id: number;
  login: string;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

interface AuthorizeSeen {
  clientId: string | null;
  redirectUri: string | null;
  state: string | null;
  scope: string | null;
  codeChallengeMethod: string | null;
}

interface TokenSeen {
  clientId: string | null;
  clientSecret: string | null;
  code: string | null;
  redirectUri: string | null;
  accepted: boolean;
}

export interface GitHubStandIn {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Who is signed in at GitHub for the next authorization; null: GitHub refuses (access_denied). */
  account: GitHubAccount | null;
  authorizations: AuthorizeSeen[];
  tokenRequests: TokenSeen[];
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 64 * 1024) throw new Error('body too large');
  }
  return text;
}

export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const clientId = `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = randomBytes(20).toString('hex');
  const codes = new Map<string, { account: GitHubAccount; redirectUri: string; challenge: string | null }>();
  const tokens = new Map<string, GitHubAccount>();
  const standIn: GitHubStandIn = {
    url: '',
    clientId,
    clientSecret,
    account: null,
    authorizations: [],
    tokenRequests: [],
    close: async () => {},
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    void (async () => {
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const seen: AuthorizeSeen = {
          clientId: url.searchParams.get('client_id'),
          redirectUri: url.searchParams.get('redirect_uri'),
          state: url.searchParams.get('state'),
          scope: url.searchParams.get('scope'),
          codeChallengeMethod: url.searchParams.get('code_challenge_method'),
        };
        standIn.authorizations.push(seen);
        if (seen.clientId !== clientId || !seen.redirectUri) {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('unknown OAuth App');
          return;
        }
        const back = new URL(seen.redirectUri);
        if (seen.state) back.searchParams.set('state', seen.state);
        if (!standIn.account) {
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The user has denied your application access.');
        } else {
          const code = randomBytes(10).toString('hex');
          codes.set(code, { account: standIn.account, redirectUri: seen.redirectUri, challenge: url.searchParams.get('code_challenge') });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.href });
        res.end();
        return;
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(await readBody(req));
        const seen: TokenSeen = {
          clientId: form.get('client_id'),
          clientSecret: form.get('client_secret'),
          code: form.get('code'),
          redirectUri: form.get('redirect_uri'),
          accepted: false,
        };
        standIn.tokenRequests.push(seen);
        // GitHub answers these errors with 200 and an error object.
        if (seen.clientId !== clientId || seen.clientSecret !== clientSecret)
          return json(res, 200, {
            error: 'incorrect_client_credentials',
            error_description: 'The client_id and/or client_secret passed are incorrect.',
          });
        const issued = seen.code ? codes.get(seen.code) : undefined;
        if (seen.code) codes.delete(seen.code);
        const verifier = form.get('code_verifier');
        const pkceOk =
          !issued?.challenge || (verifier !== null && createHash('sha256').update(verifier).digest('base64url') === issued.challenge);
        if (!issued || issued.redirectUri !== seen.redirectUri || !pkceOk)
          return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        const token = `gho_${randomBytes(18).toString('hex')}`;
        tokens.set(token, issued.account);
        seen.accepted = true;
        return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      if (req.method === 'GET' && (url.pathname === '/api/v3/user' || url.pathname === '/api/v3/user/emails')) {
        const auth = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '');
        const account = auth ? tokens.get(auth[1]!) : undefined;
        if (!account) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/api/v3/user') return json(res, 200, { id: account.id, login: account.login, type: 'User' });
        return json(
          res,
          200,
          account.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
        );
      }
      json(res, 404, { message: 'Not Found' });
    })().catch((error: Error) => {
      res.writeHead(500);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  standIn.url = `http://127.0.0.1:${port}`;
  standIn.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return standIn;
}

/**
 * The two sign-in providers a service is tried with: the GitHub stand-in and a mail server, and
 * the environment that points the service at both.
 */
export async function startSignInProviders(): Promise<{
  github: GitHubStandIn;
  smtp: TestSmtpServer;
  env: Record<string, string>;
  close: () => Promise<void>;
}> {
  const github = await startGitHubStandIn();
  const smtp = await startSmtpServer();
  return {
    github,
    smtp,
    env: { GITHUB_CLIENT_ID: github.clientId, GITHUB_CLIENT_SECRET: github.clientSecret, GITHUB_URL: github.url, SMTP_URL: smtp.url },
    close: async () => {
      await github.close();
      await smtp.close();
    },
  };
}
