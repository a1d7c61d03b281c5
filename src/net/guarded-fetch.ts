import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The service's one way to fetch a URL another party chose (client ID metadata documents, a
 * client's JWKS): the host name is resolved first, every address it resolves to is checked against
 * the special-use ranges (loopback, private, link-local, CGNAT, documentation, multicast, IPv4-mapped
 * and translated IPv6 forms…), and the connection is then made to the checked address only (DNS is
 * not asked again, so a name cannot change its answer between the check and the connection). Time
 * (connect and whole answer) and size are bounded; redirects are not followed.
 *
 * Host names written as numbers in other forms (`2130706433`, `0x7f.1`, `017700000001`) are
 * normalized by the URL parser to dotted IPv4 before the check, so they are refused like `127.0.0.1`.
 */

export class GuardedFetchError extends Error {
  constructor(
    message: string,
    readonly reason: 'address' | 'scheme' | 'timeout' | 'size' | 'network' | 'resolve',
  ) {
    super(message);
  }
}

export interface GuardedFetchOptions {
  /** Whole request, from resolving to the last byte. */
  timeoutMs?: number;
  maxBytes?: number;
  headers?: Record<string, string>;
  /**
   * Tests only: loopback addresses are allowed and plain http is used (the test serves the
   * document on 127.0.0.1). Never set outside tests (the configuration refuses it in production).
   */
  allowLoopback?: boolean;
}

// Separate lists: a BlockList holding an IPv6 range that contains the IPv4-mapped block also
// matches every IPv4 address.
const SPECIAL_USE_V4 = new BlockList();
const SPECIAL_USE_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  SPECIAL_USE_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
] as const) {
  SPECIAL_USE_V6.addSubnet(net, prefix, 'ipv6');
}

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`, `::ffff:7f00:1`): refused whatever the embedded address. */
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether an IP address (v4 or v6, literal) is of a special-use range: never a public server. */
export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return SPECIAL_USE_V4.check(address, 'ipv4');
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // IPv4-compatible and mapped forms written with a dotted tail (`::127.0.0.1`, `::ffff:10.0.0.1`).
  if (/:\d+\.\d+\.\d+\.\d+$/.test(lower)) return true;
  return MAPPED.check(lower, 'ipv6') || SPECIAL_USE_V6.check(lower, 'ipv6');
}

function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family === 4 ? LOOPBACK.check(address, 'ipv4') : family === 6 ? LOOPBACK.check(address, 'ipv6') : false;
}

/** Resolves `hostname` and returns the first address allowed, or throws (every address is checked). */
async function checkedAddress(hostname: string, allowLoopback: boolean, signal: AbortSignal): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: { address: string; family: number }[];
  if (literal) {
    addresses = [{ address: host, family: literal }];
  } else {
    if (host === 'localhost' || host.endsWith('.localhost')) {
      if (!allowLoopback) throw new GuardedFetchError(`${host} is this machine`, 'address');
      return { address: '127.0.0.1', family: 4 };
    }
    try {
      addresses = await Promise.race([
        dnsLookup(host, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => {
          signal.addEventListener('abort', () => reject(new GuardedFetchError(`resolving ${host} took too long`, 'timeout')), {
            once: true,
          });
        }),
      ]);
    } catch (error) {
      if (error instanceof GuardedFetchError) throw error;
      throw new GuardedFetchError(`${host} could not be resolved`, 'resolve');
    }
  }
  if (addresses.length === 0) throw new GuardedFetchError(`${host} has no address`, 'resolve');
  // One special-use answer refuses the name: a name that mixes them is not trusted with any.
  for (const a of addresses) {
    if (allowLoopback && isLoopbackAddress(a.address)) continue;
    if (isSpecialUseAddress(a.address)) throw new GuardedFetchError(`${host} resolves to a special-use address (${a.address})`, 'address');
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * GETs `url` under the guard and returns a Fetch API Response holding the whole (bounded) body.
 * Throws GuardedFetchError when the URL's scheme, its address, the time or the size is refused.
 */
export async function guardedFetch(url: string | URL, options: GuardedFetchOptions = {}): Promise<Response> {
  const target = new URL(url);
  const timeoutMs = options.timeoutMs ?? 2500;
  const maxBytes = options.maxBytes ?? 5 * 1024;
  const allowLoopback = options.allowLoopback === true;
  if (target.protocol !== 'https:' && !(allowLoopback && target.protocol === 'http:'))
    throw new GuardedFetchError(`only https URLs are fetched (got ${target.protocol})`, 'scheme');
  if (target.username || target.password) throw new GuardedFetchError('URLs with credentials are not fetched', 'scheme');
  const signal = AbortSignal.timeout(timeoutMs);
  const { address, family } = await checkedAddress(target.hostname, allowLoopback, signal);
  const hostname = target.hostname.replace(/^\[|\]$/g, '');
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<Response>((resolve, reject) => {
    const req = send(
      {
        protocol: target.protocol,
        host: hostname,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'workflow-service', ...options.headers },
        // The connection goes to the address checked above, whatever DNS would answer now.
        lookup: ((_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
          if (opts?.all) callback(null, [{ address, family }]);
          else callback(null, address, family);
        }) as unknown as LookupFunction,
        // The certificate is still checked against the host name.
        servername: isIP(hostname) ? undefined : hostname,
        signal,
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy();
            reject(new GuardedFetchError(`the answer is larger than ${maxBytes} bytes`, 'size'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            if (Array.isArray(value)) for (const v of value) headers.append(name, v);
            else headers.set(name, value);
          }
          const status = res.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          try {
            resolve(new Response(body, { status: status < 200 || status > 599 ? 502 : status, headers }));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        res.on('error', (error) => reject(new GuardedFetchError(error.message, 'network')));
      },
    );
    req.on('error', (error: Error & { name?: string }) => {
      if (signal.aborted) reject(new GuardedFetchError(`no answer within ${timeoutMs} ms`, 'timeout'));
      else reject(new GuardedFetchError(error.message, 'network'));
    });
    req.end();
  });
}
