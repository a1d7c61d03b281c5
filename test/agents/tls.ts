import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';

/**
 * HTTPS under a made-up public name (e.g. https://workflows.test) for the agent CLIs, which refuse
 * some things on loopback or plain http (Claude Code's plugin archives must be https and must not
 * name a loopback host): a throwaway certificate authority and a certificate for the names, made
 * with openssl at test time, and a TLS front that relays each connection to the service.
 * The egress proxy (proxy.ts) sends the names to the front; the CLIs trust the authority through
 * NODE_EXTRA_CA_CERTS and CODEX_CA_CERTIFICATE (AgentHome's caFile).
 */

export interface TestCertificates {
  /** PEM file of the authority, for the CLIs to trust. */
  caFile: string;
  /** The server's certificate (for the names given) and its private key, PEM. */
  cert: string;
  key: string;
  remove(): void;
}

const openssl = (args: string[], cwd: string) => promisify(execFile)('openssl', args, { cwd, timeout: 30_000 });

/** A new authority (valid one day) and a certificate it signed for `names`, made in a temporary folder. */
export async function makeTestCertificates(names: string[]): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-agent-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  // The authority: a CA certificate as strict verifiers (rustls in Codex) expect one.
  await openssl(
    [
      ...['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1'],
      ...['-subj', '/CN=Workflow service test authority'],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ],
    dir,
  );
  await openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${names[0]}`], dir);
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`,
    ].join('\n'),
  );
  await openssl(
    [
      ...['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'],
      ...['-out', 'server.pem', '-days', '1', '-extfile', 'server.ext'],
    ],
    dir,
  );
  return {
    caFile: join(dir, 'ca.pem'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsFront {
  /** Where it listens (127.0.0.1). */
  port: number;
  close(): Promise<void>;
}

/** A TLS server on a free loopback port that relays each connection's bytes to `target` (the service's plain HTTP port). */
export async function startTlsFront(certificates: TestCertificates, target: { host: string; port: number }): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert: certificates.cert, key: certificates.key }, (client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  // A client that gives up during the handshake is no failure of the test.
  server.on('tlsClientError', () => {});
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
