import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
// The service's own validator (one rule, one place): bundled into the command line by cli/build.mjs.
import { parseManifestInput, validateManifest } from '../../src/manifest/validate.js';
import type { Api } from './api.js';
import { CliError, type Output } from './output.js';
import { writeFileSafely } from './safe-write.js';
import { isOrAre, plural } from '../../src/text.js';

/**
 * Manifests as files (docs/cli.md, "Manifests as files"): one file per workflow (YAML or JSON, the
 * manifest exactly as the service keeps it), and a state file, `wfctl.state.json`, mapping each
 * file to its workflow id, the version it was last pulled or pushed at, and the file's hash then.
 */

export const STATE_FILE = 'wfctl.state.json';
const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

interface FileState {
  workflowId: string;
  version: string;
  sha256: string;
}

export interface State {
  service: string;
  workflows: Record<string, FileState>;
}

export interface Problem {
  path: string;
  code: string;
  message: string;
  line?: number;
  column?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function readState(dir: string, service: string): State {
  const path = join(dir, STATE_FILE);
  if (!existsSync(path)) return { service, workflows: {} };
  let state: State;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as State;
  } catch {
    throw new CliError('INVALID_FILE', `${path} is not valid JSON`, `Restore it from version control, or delete it and run wfctl pull.`);
  }
  if (!state || typeof state.workflows !== 'object' || state.workflows === null)
    throw new CliError(
      'INVALID_FILE',
      `${path} has no "workflows" map`,
      'Restore it from version control, or delete it and run wfctl pull.',
    );
  if (state.service && state.service !== service)
    throw new CliError(
      'USAGE',
      `${path} belongs to ${state.service}, not ${service}`,
      `Pass --service ${state.service}, or pull into another directory.`,
    );
  return { service, workflows: state.workflows };
}

function writeState(dir: string, state: State): void {
  const sorted = Object.fromEntries(Object.entries(state.workflows).sort(([a], [b]) => a.localeCompare(b)));
  const path = join(dir, STATE_FILE);
  writeFileSafely(path, `${JSON.stringify({ service: state.service, workflows: sorted }, null, 2)}\n`, { private: false });
}

export function checkDir(dir: string): string {
  const full = resolve(dir);
  if (!existsSync(full) || !statSync(full).isDirectory())
    throw new CliError('NOT_FOUND', `${dir} is not a directory`, 'Pass --dir with the directory of your manifest files.');
  return full;
}

/** The manifest files of a directory (not its subdirectories), or the files named. */
function manifestFiles(dir: string, named: string[] = []): string[] {
  if (named.length > 0) {
    return named.map((file) => {
      const full = resolve(dir, file);
      if (!existsSync(full) || !statSync(full).isFile())
        throw new CliError('NOT_FOUND', `${file}: no such file`, 'Name manifest files that exist (relative to --dir).');
      return relative(dir, full);
    });
  }
  return (
    readdirSync(dir)
      // wfctl's own files (the state, the deploy file) sit beside the manifests: every `wfctl.*` name is its own.
      .filter(
        (name) => MANIFEST_EXTENSIONS.has(extname(name).toLowerCase()) && !name.startsWith('wfctl.') && statSync(join(dir, name)).isFile(),
      )
      .sort()
  );
}

/** Parses and validates a file with the service's validator; the problems, or the manifest. */
function checkFile(dir: string, file: string): { text: string; manifest?: Record<string, unknown>; problems: Problem[] } {
  const text = readFileSync(join(dir, file), 'utf8');
  if (!MANIFEST_EXTENSIONS.has(extname(file).toLowerCase()))
    return { text, problems: [{ path: '', code: 'file_type', message: `${file} is not a manifest file: use .yaml, .yml or .json` }] };
  let data: unknown;
  try {
    // A .json file must be JSON; YAML files go through the service's own YAML reading (limits included).
    data = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseManifestInput(text);
  } catch (error) {
    const details = (error as { details?: { errors?: Problem[] } }).details;
    if (details?.errors) return { text, problems: details.errors.map((p) => ({ ...p, code: 'yaml' })) };
    return { text, problems: [{ path: '', code: 'json', message: `not valid JSON: ${(error as Error).message}` }] };
  }
  const checked = validateManifest(data);
  if (!checked.valid) return { text, problems: checked.errors };
  return { text, manifest: data as Record<string, unknown>, problems: [] };
}

function slug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'workflow'
  );
}

interface Workflow {
  workflowId: string;
  name: string;
  currentVersion: string;
}

export async function pull(options: { api: Api; dir: string; format: 'yaml' | 'json'; force: boolean; dryRun: boolean; out: Output }) {
  const { api, dir, out } = options;
  const state = readState(dir, api.service);
  const byId = new Map(Object.entries(state.workflows).map(([file, s]) => [s.workflowId, file]));
  out.progress('Listing your workflows…');
  const workflows = await api.list<Workflow>('/workflows');
  const taken = new Set(Object.keys(state.workflows));
  const written: Array<{ file: string; workflowId: string; version: string }> = [];
  const unchanged: Array<{ file: string; workflowId: string; version: string }> = [];
  const refused: Array<{ file: string; workflowId: string; reason: string }> = [];
  let index = 0;
  for (const workflow of workflows) {
    index += 1;
    let file = byId.get(workflow.workflowId);
    if (!file) {
      const base = slug(workflow.name);
      file = `${base}.${options.format}`;
      if (taken.has(file) || existsSync(join(dir, file))) file = `${base}-${workflow.workflowId.slice(-6).toLowerCase()}.${options.format}`;
      taken.add(file);
    }
    const known = state.workflows[file];
    const path = join(dir, file);
    if (known && known.version === workflow.currentVersion && existsSync(path) && sha256(readFileSync(path, 'utf8')) === known.sha256) {
      unchanged.push({ file, workflowId: workflow.workflowId, version: workflow.currentVersion });
      continue;
    }
    // A file edited since the last pull is not overwritten without --force.
    if (known && existsSync(path) && sha256(readFileSync(path, 'utf8')) !== known.sha256 && !options.force) {
      refused.push({ file, workflowId: workflow.workflowId, reason: 'edited locally since the last pull' });
      continue;
    }
    out.progress(`[${index}/${workflows.length}] ${file} (${workflow.name}, version ${workflow.currentVersion})`);
    const format = extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
    const text = await api.text(`/workflows/${encodeURIComponent(workflow.workflowId)}/manifest?format=${format}`);
    written.push({ file, workflowId: workflow.workflowId, version: workflow.currentVersion });
    if (!options.dryRun) {
      writeFileSafely(path, text, { private: false });
      state.workflows[file] = { workflowId: workflow.workflowId, version: workflow.currentVersion, sha256: sha256(text) };
    }
  }
  if (!options.dryRun) writeState(dir, state);
  const result = { dryRun: options.dryRun, written, unchanged, refused };
  if (refused.length > 0) {
    throw new CliError(
      'CONFLICT',
      `${plural(refused.length, 'file')} ${refused.length === 1 ? 'was' : 'were'} edited locally since the last pull and ${refused.length === 1 ? 'was' : 'were'} not overwritten: ${refused.map((r) => r.file).join(', ')}`,
      "Compare with wfctl diff; keep your edits with wfctl push (--force when the service changed too), or take the service's version with wfctl pull --force.",
      result,
    );
  }
  return result;
}

interface PushEntry {
  file: string;
  workflowId?: string;
  from?: string;
  to?: string;
}

type CheckedFile = { file: string } & ReturnType<typeof checkFile>;

/** Every file checked first: nothing is sent while one of them is invalid. */
function checkAll(dir: string, files: string[]): CheckedFile[] {
  const invalid: Array<{ file: string; errors: Problem[] }> = [];
  const checked = files.map((file) => {
    const result = checkFile(dir, file);
    if (result.problems.length > 0) invalid.push({ file, errors: result.problems });
    return { file, ...result };
  });
  if (invalid.length > 0) {
    throw new CliError(
      'VALIDATION_ERROR',
      `${plural(invalid.length, 'file')} ${isOrAre(invalid.length)} not valid manifests: ${invalid.map((i) => `${i.file} (${i.errors[0]!.path || '/'}: ${i.errors[0]!.message})`).join('; ')}`,
      'Run wfctl validate for every problem, fix them, and push again. Nothing was pushed.',
      { files: invalid },
    );
  }
  return checked;
}

/** One push under way: where it writes, what it has done so far, and the service's workflows read at its start. */
interface PushRun {
  api: Api;
  dir: string;
  state: State;
  out: Output;
  dryRun: boolean;
  force: boolean;
  mine: Workflow[];
  created: PushEntry[];
  updated: PushEntry[];
  unchanged: PushEntry[];
  // `raced`: changed by someone else between this push's read and its write (412 on If-Match).
  conflicts: Array<PushEntry & { serviceVersion: string; raced?: true }>;
  /** `[i/n] ` before each file's progress line. */
  step: string;
}

/** The one untracked workflow of the user named `name`, if any (several: which one is unclear). */
function sameName(run: PushRun, name: string, file: string): Workflow | undefined {
  const tracked = new Set(Object.values(run.state.workflows).map((s) => s.workflowId));
  const found = run.mine.filter((w) => w.name === name && !tracked.has(w.workflowId));
  if (found.length > 1)
    throw new CliError(
      'CONFLICT',
      `${file}: ${found.length} of your workflows are named '${name}', so it is not clear which one it is`,
      'Run wfctl pull to map files to workflows, or rename the manifest.',
    );
  return found[0];
}

function remember(run: PushRun, file: string, workflowId: string, version: string, hash: string): void {
  run.state.workflows[file] = { workflowId, version, sha256: hash };
  writeState(run.dir, run.state);
}

/** A file the state does not know, taken for the workflow of the same name an earlier push made. */
async function pushNamesake(run: PushRun, file: string, text: string, namesake: Workflow): Promise<void> {
  run.out.progress(`${run.step}${file}: update ${namesake.workflowId} (same name)${run.dryRun ? ' (dry run)' : ''}`);
  if (run.dryRun) {
    run.updated.push({ file, workflowId: namesake.workflowId, from: namesake.currentVersion });
    return;
  }
  const saved = await run.api.call<Workflow>('PUT', `/workflows/${encodeURIComponent(namesake.workflowId)}`, { manifest: text });
  remember(run, file, namesake.workflowId, saved.currentVersion, sha256(text));
  (saved.currentVersion === namesake.currentVersion ? run.unchanged : run.updated).push({
    file,
    workflowId: namesake.workflowId,
    from: namesake.currentVersion,
    to: saved.currentVersion,
  });
}

async function pushNew(run: PushRun, file: string, text: string, manifest: Record<string, unknown>): Promise<void> {
  run.out.progress(`${run.step}${file}: new workflow${run.dryRun ? ' (dry run)' : ''}`);
  if (run.dryRun) {
    run.created.push({ file });
    return;
  }
  const name = String(manifest.name ?? basename(file, extname(file))).slice(0, 100);
  const made = await run.api.call<Workflow>('POST', '/workflows', {
    name,
    description: typeof manifest.intent === 'string' ? manifest.intent : undefined,
    manifest: text,
  });
  remember(run, file, made.workflowId, made.currentVersion, sha256(text));
  run.created.push({ file, workflowId: made.workflowId, to: made.currentVersion });
}

/** A tracked file: saved over the version read now, unless the service moved on since the last pull (without --force). */
async function pushKnown(run: PushRun, file: string, text: string, known: FileState): Promise<void> {
  const { api } = run;
  const { data: current, etag } = await api.read<Workflow>(`/workflows/${encodeURIComponent(known.workflowId)}`);
  if (current.currentVersion !== known.version && !run.force) {
    run.conflicts.push({ file, workflowId: known.workflowId, from: known.version, serviceVersion: current.currentVersion });
    return;
  }
  run.out.progress(`${run.step}${file}: update ${known.workflowId}${run.dryRun ? ' (dry run)' : ''}`);
  if (run.dryRun) {
    run.updated.push({ file, workflowId: known.workflowId, from: known.version });
    return;
  }
  let saved: Workflow;
  try {
    // Saved only over what was just read: a change someone makes in between is not replaced
    // (--force replaces what it read, not what it did not see).
    saved = await api.call<Workflow>(
      'PUT',
      `/workflows/${encodeURIComponent(known.workflowId)}`,
      { manifest: text },
      etag ? { 'if-match': etag } : {},
    );
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== 'PRECONDITION_FAILED') throw error;
    const now = await api.call<Workflow>('GET', `/workflows/${encodeURIComponent(known.workflowId)}`);
    run.conflicts.push({ file, workflowId: known.workflowId, from: known.version, serviceVersion: now.currentVersion, raced: true });
    return;
  }
  remember(run, file, known.workflowId, saved.currentVersion, sha256(text));
  (saved.currentVersion === current.currentVersion ? run.unchanged : run.updated).push({
    file,
    workflowId: known.workflowId,
    from: current.currentVersion,
    to: saved.currentVersion,
  });
}

export async function push(options: { api: Api; dir: string; files: string[]; force: boolean; dryRun: boolean; out: Output }) {
  const { api, dir } = options;
  const state = readState(dir, api.service);
  const checked = checkAll(dir, manifestFiles(dir, options.files));
  // Read first, even when every file is unchanged since the last push: a push never reports success
  // from a service it did not reach (a stopped service, another web server, a refused credential).
  const mine = await api.list<Workflow>('/workflows');
  const run: PushRun = {
    api,
    dir,
    state,
    out: options.out,
    dryRun: options.dryRun,
    force: options.force,
    mine,
    created: [],
    updated: [],
    unchanged: [],
    conflicts: [],
    step: '',
  };
  for (const [i, { file, text, manifest }] of checked.entries()) {
    run.step = `[${i + 1}/${checked.length}] `;
    const known = state.workflows[file];
    if (known && known.sha256 === sha256(text)) {
      run.unchanged.push({ file, workflowId: known.workflowId, from: known.version, to: known.version });
      continue;
    }
    if (known) {
      await pushKnown(run, file, text, known);
      continue;
    }
    // A file the state does not know may be a workflow of the same name made by an earlier push
    // whose state was not kept (CI): it is updated, not made twice.
    const namesake = sameName(run, String(manifest!.name ?? ''), file);
    await (namesake ? pushNamesake(run, file, text, namesake) : pushNew(run, file, text, manifest!));
  }
  const { created, updated, unchanged, conflicts } = run;
  const result = { dryRun: options.dryRun, created, updated, unchanged, conflicts };
  if (conflicts.length > 0) {
    throw new CliError(
      'CONFLICT',
      `changed on the service since your last pull, not pushed: ${conflicts
        .map((c) =>
          c.raced
            ? `${c.file} (changed by someone else while this push ran; the service has ${c.serviceVersion})`
            : `${c.file} (you have ${c.from}, the service has ${c.serviceVersion})`,
        )
        .join('; ')}`,
      "Run wfctl diff to see the changes, wfctl pull --force to take the service's version (then apply your edit again), or push --force to replace it with yours.",
      result,
    );
  }
  return result;
}

export async function diff(options: { api: Api; dir: string; files: string[]; out: Output }) {
  const { api, dir } = options;
  const state = readState(dir, api.service);
  const files = manifestFiles(dir, options.files);
  const entries: Array<{
    file: string;
    status: 'new' | 'modified' | 'unchanged' | 'changed-on-service';
    workflowId?: string;
    localVersion?: string;
    serviceVersion?: string;
    patch?: string;
  }> = [];
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const known = state.workflows[file];
    if (!known) {
      entries.push({ file, status: 'new', patch: createTwoFilesPatch('/dev/null', file, '', text) });
      continue;
    }
    const current = await api.call<Workflow>('GET', `/workflows/${encodeURIComponent(known.workflowId)}`);
    const format = extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
    const remote = await api.text(`/workflows/${encodeURIComponent(known.workflowId)}/manifest?format=${format}`);
    const base = { file, workflowId: known.workflowId, localVersion: known.version, serviceVersion: current.currentVersion };
    if (remote === text) entries.push({ ...base, status: 'unchanged' });
    else
      entries.push({
        ...base,
        status: current.currentVersion !== known.version ? 'changed-on-service' : 'modified',
        patch: createTwoFilesPatch(`service/${file} (${current.currentVersion})`, `local/${file}`, remote, text),
      });
  }
  return { files: entries, changed: entries.filter((e) => e.status !== 'unchanged').length };
}

export function validate(options: { dir: string; files: string[] }) {
  const files = manifestFiles(options.dir, options.files);
  if (files.length === 0)
    throw new CliError(
      'NOT_FOUND',
      `no manifest files (.yaml, .yml, .json) in ${options.dir}`,
      'Pass the files to check, or --dir with the directory holding them.',
    );
  return files.map((file) => {
    const { problems } = checkFile(options.dir, file);
    return { file, valid: problems.length === 0, errors: problems };
  });
}

/** The workflow id a deploy file names: a manifest file of the state, or an id as is. */
export function workflowIdOf(dir: string, service: string, reference: string): string {
  const state = readState(dir, service);
  const entry = state.workflows[reference] ?? state.workflows[relative(dir, resolve(dir, reference))];
  if (entry) return entry.workflowId;
  if (MANIFEST_EXTENSIONS.has(extname(reference).toLowerCase()))
    throw new CliError('NOT_FOUND', `${reference} is not in ${STATE_FILE}`, 'Push it first (wfctl push), or name the workflow by its id.');
  return reference;
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return checkDir(dir);
}
