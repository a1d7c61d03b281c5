import { connect, type Socket } from 'node:net';
import type pg from 'pg';

/**
 * Asks the server to cancel the statement a pooled connection is running: PostgreSQL's cancel
 * request (the protocol's own, what `pg_cancel_backend` does from SQL), sent on a separate short
 * connection with the backend's process id and secret key. PgBouncer forwards it to the server
 * connection its client is linked to, so it works through a transaction-mode pooler too, where a
 * `pg_cancel_backend(pid)` would have no pid to name.
 *
 * The statement then fails with 57014 (query_canceled) on its own connection, which stays usable;
 * the backend stops waiting (a lock, a slow scan) instead of working on for a client that has
 * given up. Resolves true once the server has taken the request (it closes the connection), false
 * when it could not be delivered within `timeoutMs` (a frozen or unreachable server): the caller
 * then gives the connection up.
 */

/** Protocol code of a CancelRequest (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  host?: string;
  port?: number;
}

export function cancelRunningStatement(client: pg.ClientBase, timeoutMs: number): Promise<boolean> {
  const key = client as unknown as BackendKey;
  if (key.processID === null || key.secretKey === null || key.processID === undefined || key.secretKey === undefined) {
    return Promise.resolve(false);
  }
  const host = key.host ?? 'localhost';
  const port = key.port ?? 5432;
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(key.processID, 8);
  // The key is a 32-bit value PostgreSQL sends signed or not depending on the version.
  packet.writeUInt32BE(key.secretKey >>> 0, 12);
  return new Promise((resolve) => {
    let settled = false;
    const socket: Socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    const finish = (delivered: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(delivered);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    // Written without ending our side: PgBouncer drops a cancel request whose client half-closes
    // before it has been forwarded ("client unexpected eof"). The server, or PgBouncer once it has
    // passed the request on, answers by closing the connection.
    socket.once('connect', () => socket.write(packet));
    socket.once('close', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
