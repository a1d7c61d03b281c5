import { Api } from '../api.js';
import { browserLogin, deviceLogin } from '../auth.js';
import { credentialStore } from '../credentials.js';
import type { CommandContext } from './context.js';

/** wfctl login: through the browser (a loopback redirect), or with --device on another device. */
export async function login(ctx: CommandContext, options: { device?: boolean; browser: boolean }): Promise<void> {
  const { out } = ctx;
  const service = ctx.service();
  const store = credentialStore();
  const credential = options.device ? await deviceLogin(service, out, options.browser) : await browserLogin(service, out, options.browser);
  const me = await new Api(service, { kind: 'oauth', token: credential.accessToken, stored: credential }).call('GET', '/users/me');
  store.save({ ...credential, email: me.email ?? null });
  out.result({ service, email: me.email ?? null, userId: me.userId, credentialStore: store.name, location: store.location }, () =>
    out.line(`Signed in to ${service} as ${me.email ?? me.userId} (credential kept in ${store.location}).`),
  );
}
