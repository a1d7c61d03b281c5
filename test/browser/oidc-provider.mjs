// A real OpenID provider (oidc-provider) for the browser sign-in test, run in a process of its own on
// a loopback port. Its development sign-in form takes any login; the login becomes the e-mail address.
//   node test/browser/oidc-provider.mjs <port> <client id> <client secret> <redirect uri>
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  cookies: { keys: [randomBytes(32).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  scopes: ['openid', 'email', 'profile'],
  pkce: { required: () => true },
  async findAccount(_ctx, id) {
    const email = id.includes('@') ? id : `${id}@example.com`;
    return { accountId: id, claims: () => ({ sub: `acct-${id}`, email, email_verified: true, name: id }) };
  },
});
// Loopback http only: the provider's own warning about it is expected here.
provider.on('server_error', (_ctx, error) => console.error(error));
provider.listen(Number(port), '127.0.0.1', () => console.log(`oidc provider ready on ${issuer}`));
