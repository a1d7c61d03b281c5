import { revoke } from '../auth.js';
import { credentialStore } from '../credentials.js';
import type { CommandContext } from './context.js';

/** wfctl logout: revokes this machine's sign-in at the service and forgets it. */
export async function logout(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const service = ctx.service();
  const store = credentialStore();
  const stored = store.load(service);
  const revoked = stored ? await revoke(stored) : false;
  const removed = store.remove(service);
  out.result({ service, signedOut: removed, revoked }, () =>
    out.line(
      removed
        ? `Signed out of ${service}${revoked ? '' : ' (the service could not be told; the sign-in ends when it expires)'}.`
        : `Not signed in to ${service}.`,
    ),
  );
}
