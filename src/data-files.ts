import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Files the service keeps under DATA_DIR (development keys and secrets), written so that several
 * instances starting at once on one data directory end up sharing one file, and a crash never
 * leaves a half-written one.
 */

function tempPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

async function writeFileSynced(file: string, data: string, mode: number): Promise<void> {
  const handle = await open(file, 'wx', mode);
  try {
    await handle.writeFile(data, 'utf8');
    // Flushed before it becomes visible under its final name.
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `data` to `file` unless the file exists, and returns what the file then holds: this
 * instance's data, or that of the instance that wrote it first.
 */
export async function writeFirst(file: string, data: string, mode = 0o600): Promise<string> {
  const tmp = tempPath(file);
  await writeFileSynced(tmp, data, mode);
  try {
    // link() refuses to replace an existing file, unlike rename(): the first complete file wins.
    await link(tmp, file);
  } catch (error) {
    // Some file systems have no hard links; rename is still atomic, and the read below adopts
    // whichever file landed last.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await rename(tmp, file);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return readFile(file, 'utf8');
}

/** Replaces `file` with `data` in one step. */
export async function writeAtomically(file: string, data: string, mode: number): Promise<void> {
  const tmp = tempPath(file);
  try {
    await writeFileSynced(tmp, data, mode);
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
