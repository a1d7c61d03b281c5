import { Api, currentCredential } from '../api.js';
import { credentialStore } from '../credentials.js';
import type { CommandContext } from './context.js';

/** wfctl whoami: who the command line acts as, and with which credential. */
export async function whoami(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const service = ctx.service();
  const credential = currentCredential(service);
  const me = await new Api(service, credential).call('GET', '/users/me');
  const source = credential?.kind === 'api_key' ? 'WFCTL_API_KEY' : credentialStore().location;
  out.result({ service, userId: me.userId, email: me.email ?? null, credential: credential?.kind, source, plan: me.plan ?? null }, () =>
    out.line(
      `${me.email ?? me.userId} on ${service} (${credential?.kind === 'api_key' ? 'API key from WFCTL_API_KEY' : `signed in; ${source}`})`,
    ),
  );
}
