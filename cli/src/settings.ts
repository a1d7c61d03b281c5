import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './output.js';

/** Where the command line keeps its files and which service it talks to (docs/cli.md, "Files"). */

const DEFAULT_SERVICE = 'http://127.0.0.1:4000';

/** `WFCTL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/wfctl`, else `~/.config/wfctl` (`%APPDATA%\wfctl` on Windows). */
export function configDir(): string {
  if (process.env.WFCTL_CONFIG_DIR) return process.env.WFCTL_CONFIG_DIR;
  if (process.platform === 'win32' && process.env.APPDATA) return join(process.env.APPDATA, 'wfctl');
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'wfctl');
}

/** The service's origin from `--service`, `WFCTL_SERVICE` or the default; a trailing `/v1` is accepted and dropped. */
export function serviceOrigin(flag: string | undefined): string {
  const raw = flag ?? process.env.WFCTL_SERVICE ?? DEFAULT_SERVICE;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(
      'USAGE',
      `the service address '${raw}' is not a URL`,
      'Pass --service https://your-service.example (or set WFCTL_SERVICE).',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new CliError('USAGE', `the service address '${raw}' must be an http(s) URL`, 'Pass --service https://your-service.example.');
  if (url.protocol === 'http:' && !isLoopback(url.hostname))
    throw new CliError(
      'USAGE',
      `the service address '${raw}' uses plain http to another machine`,
      'Credentials would cross the network unencrypted: use https (plain http is accepted for 127.0.0.1, ::1 and localhost only).',
    );
  return url.origin;
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
