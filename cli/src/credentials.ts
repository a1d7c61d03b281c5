import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from './settings.js';
import { CliError } from './output.js';
import { writeFileSafely } from './safe-write.js';

/**
 * The signed-in credential, one per service: in the OS keychain where one works (macOS `security`,
 * Linux `secret-tool`), otherwise in a file only the user can read (`credentials.json` in the
 * configuration directory, mode 0600). `WFCTL_CREDENTIAL_STORE=file` or `keychain` chooses.
 * An API key from `WFCTL_API_KEY` (CI) is never stored.
 */

export interface StoredCredential {
  service: string;
  kind: 'oauth';
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  email?: string | null;
}

export interface CredentialStore {
  readonly name: 'keychain' | 'file';
  /** Where it is kept, for people: the file's path or the keychain's name. */
  readonly location: string;
  load(service: string): StoredCredential | null;
  save(credential: StoredCredential): void;
  remove(service: string): boolean;
}

const KEYCHAIN_SERVICE = 'wfctl';

function run(command: string, args: string[], input?: string) {
  return spawnSync(command, args, { input, encoding: 'utf8', timeout: 10_000 });
}

function hasCommand(command: string): boolean {
  const probe = spawnSync(process.platform === 'win32' ? 'where' : 'which', [command], { encoding: 'utf8', timeout: 5_000 });
  return probe.status === 0;
}

function parse(text: string | null | undefined): StoredCredential | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as StoredCredential;
    return value && typeof value.accessToken === 'string' ? value : null;
  } catch {
    return null;
  }
}

function macKeychain(): CredentialStore {
  return {
    name: 'keychain',
    location: 'macOS keychain (service "wfctl")',
    load(service) {
      const found = run('security', ['find-generic-password', '-s', KEYCHAIN_SERVICE, '-a', service, '-w']);
      return found.status === 0 ? parse(found.stdout.trim()) : null;
    },
    save(credential) {
      // -w takes the secret as an argument; `security` offers no stdin form for it outside its prompt.
      const saved = run('security', [
        'add-generic-password',
        '-U',
        '-s',
        KEYCHAIN_SERVICE,
        '-a',
        credential.service,
        '-w',
        JSON.stringify(credential),
      ]);
      if (saved.status !== 0)
        throw new CliError(
          'KEYCHAIN_FAILED',
          `the keychain refused the credential: ${saved.stderr.trim()}`,
          'Set WFCTL_CREDENTIAL_STORE=file to keep it in a file instead.',
        );
    },
    remove(service) {
      return run('security', ['delete-generic-password', '-s', KEYCHAIN_SERVICE, '-a', service]).status === 0;
    },
  };
}

function secretTool(): CredentialStore {
  const attributes = (service: string) => ['application', KEYCHAIN_SERVICE, 'service', service];
  return {
    name: 'keychain',
    location: 'Secret Service keyring (secret-tool, application "wfctl")',
    load(service) {
      const found = run('secret-tool', ['lookup', ...attributes(service)]);
      return found.status === 0 ? parse(found.stdout.trim()) : null;
    },
    save(credential) {
      const saved = run(
        'secret-tool',
        ['store', '--label', `wfctl ${credential.service}`, ...attributes(credential.service)],
        JSON.stringify(credential),
      );
      if (saved.status !== 0)
        throw new CliError(
          'KEYCHAIN_FAILED',
          `the keyring refused the credential: ${saved.stderr.trim()}`,
          'Set WFCTL_CREDENTIAL_STORE=file to keep it in a file instead.',
        );
    },
    remove(service) {
      const had = this.load(service) !== null;
      run('secret-tool', ['clear', ...attributes(service)]);
      return had;
    },
  };
}

function credentialsFile(): string {
  return join(configDir(), 'credentials.json');
}

function fileStore(): CredentialStore {
  const path = credentialsFile();
  const readAll = (): Record<string, StoredCredential> => {
    if (!existsSync(path)) return {};
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Record<string, StoredCredential>;
    } catch {
      throw new CliError('INVALID_FILE', `${path} is not valid JSON`, `Delete it and run wfctl login again.`);
    }
  };
  const writeAll = (all: Record<string, StoredCredential>) => {
    // Created 0600 and renamed into place: the file is never readable by others, not even for a moment.
    writeFileSafely(path, `${JSON.stringify(all, null, 2)}\n`, { private: true });
  };
  return {
    name: 'file',
    location: path,
    load: (service) => readAll()[service] ?? null,
    save(credential) {
      writeAll({ ...readAll(), [credential.service]: credential });
    },
    remove(service) {
      const all = readAll();
      if (!(service in all)) return false;
      delete all[service];
      writeAll(all);
      return true;
    },
  };
}

/** The store this machine offers, as `WFCTL_CREDENTIAL_STORE` asks (default: the keychain where one works). */
export function credentialStore(): CredentialStore {
  const wanted = process.env.WFCTL_CREDENTIAL_STORE ?? 'auto';
  if (!['auto', 'file', 'keychain'].includes(wanted))
    throw new CliError('USAGE', `WFCTL_CREDENTIAL_STORE is '${wanted}'`, 'Set it to auto, keychain or file.');
  if (wanted === 'file') return fileStore();
  if (process.platform === 'darwin' && hasCommand('security')) return macKeychain();
  if (process.platform === 'linux' && hasCommand('secret-tool') && process.env.DBUS_SESSION_BUS_ADDRESS) return secretTool();
  if (wanted === 'keychain')
    throw new CliError(
      'KEYCHAIN_UNAVAILABLE',
      'no keychain works here (macOS security, or secret-tool with a D-Bus session on Linux)',
      'Unset WFCTL_CREDENTIAL_STORE to use the file store.',
    );
  return fileStore();
}
