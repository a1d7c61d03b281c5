import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Every file the command line writes goes through here, so that no other local user or process can
 * read a key it holds or steer where it lands:
 * - the text goes to a new temporary file beside the target, with a random name, created with
 *   `O_EXCL | O_NOFOLLOW`: a file or symlink planted at that name makes the open fail instead of
 *   being followed;
 * - the temporary file has its final mode from its creation (0600 for a file that may hold a key,
 *   whatever mode the file it replaces had), and is flushed before it is renamed over the target;
 * - a target that is itself a symlink (a configuration kept in a dotfiles folder) is written where it
 *   points, so the link stays a link.
 */
export function writeFileSafely(path: string, text: string, options: { private: boolean }): void {
  const target = resolvedTarget(path);
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`);
  const mode = options.private ? 0o600 : 0o644;
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** The file a path names: where a symlink at it points, else the path itself. */
function resolvedTarget(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink()) return realpathSync(path);
  } catch {
    // No file yet (or a dangling link, which is replaced by the new file).
  }
  return path;
}
