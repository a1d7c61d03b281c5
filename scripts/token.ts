/**
 * Prints an ID token signed by the development issuer, for calling a local
 * service: `npm run token -- --email alice@example.com [--sub X] [--name N] [--expires 3600]`.
 */
import { parseArgs } from 'node:util';

import { existsSync } from 'node:fs';
import path from 'node:path';

import { devIssuerDir, loadOrCreateDevIssuerKey, signDevToken } from '../src/auth/dev-issuer.js';

const USAGE = `usage: npm run token -- --email <address> [--sub <subject>] [--name <display name>] [--expires <seconds>]

Prints one ID token signed by the development issuer kept under DATA_DIR (default ./.data).
The service accepts it when it runs without OIDC_ISSUER and with the development issuer enabled.`;

function usage(problem: string): never {
  process.stderr.write(`${problem}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') {
    // A production service never trusts this issuer, so a token from here
    // would only mislead whoever is debugging.
    process.stderr.write('refusing to sign development tokens with NODE_ENV=production\n');
    process.exit(1);
  }

  let values: { email?: string; sub?: string; name?: string; expires?: string };
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        email: { type: 'string' },
        sub: { type: 'string' },
        name: { type: 'string' },
        expires: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    usage((err as Error).message);
  }

  const email = values.email?.trim();
  if (!email) usage('--email is required');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) usage(`--email is not an e-mail address: ${email}`);
  if (values.sub !== undefined && values.sub.trim() === '') usage('--sub must not be empty');

  let expiresInSeconds: number | undefined;
  if (values.expires !== undefined) {
    expiresInSeconds = /^\d+$/.test(values.expires) ? Number(values.expires) : NaN;
    if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds <= 0) {
      usage('--expires must be a positive whole number of seconds');
    }
  }

  const dataDir = process.env.DATA_DIR || './.data';
  const keyExisted = existsSync(path.join(devIssuerDir(dataDir), 'private.jwk.json'));
  const token = await signDevToken(dataDir, { email, sub: values.sub, name: values.name, expiresInSeconds });
  const { kid } = await loadOrCreateDevIssuerKey(dataDir);
  process.stdout.write(`${token}\n`);
  // Which issuer key signed it: a service started with another DATA_DIR has another key and refuses
  // the token (401) without saying why, so say it here (stderr: stdout stays the token alone).
  process.stderr.write(
    `Signed by the development issuer key ${kid} under ${path.resolve(dataDir)}. ` +
      (keyExisted ? '' : 'That key was made just now: no service has used this DATA_DIR yet. ') +
      'A service started with another DATA_DIR refuses it with 401: run npm run token with the DATA_DIR the service uses.\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
