import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import type { Api } from './api.js';
import { workflowIdOf } from './manifests.js';
import { CliError, type Output } from './output.js';
import { ADAPTERS } from '../../src/manifest/adapter-list.js';

/**
 * `wfctl deploy [file]`: a deployment described by a small YAML or JSON file, created or updated
 * (found by its name among the user's deployments). docs/cli.md, "Deploying".
 *
 *   name: Team pipeline
 *   description: Plans, builds and reviews
 *   workflows: [plan-build-review.yaml, wf_123]   # files of wfctl.state.json, or workflow ids
 *   adapters: [adapter_one]
 *   allowAnonymous: false
 */

export const DEPLOY_FILE = 'wfctl.deploy.yaml';
const KEYS = new Set(['name', 'description', 'workflows', 'adapters', 'allowAnonymous']);

interface DeployFile {
  name: string;
  description?: string;
  workflows: string[];
  adapters?: string[];
  allowAnonymous?: boolean;
}

interface Deployment {
  deploymentId: string;
  name: string;
  status: string;
  mcpEndpoint: string;
}

function readDeployFile(path: string): DeployFile {
  if (!existsSync(path))
    throw new CliError(
      'NOT_FOUND',
      `${path}: no such file`,
      `Write a deploy file (see wfctl deploy --help) or name one: wfctl deploy path/to/${DEPLOY_FILE}.`,
    );
  let data: unknown;
  try {
    data = parse(readFileSync(path, 'utf8'), { maxAliasCount: 10 });
  } catch (error) {
    throw new CliError(
      'INVALID_FILE',
      `${path} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`,
      'Fix the file and run it again.',
    );
  }
  const problems: string[] = [];
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new CliError('INVALID_FILE', `${path} must hold a map with name and workflows`, 'See wfctl deploy --help for the format.');
  const file = data as Record<string, unknown>;
  for (const key of Object.keys(file)) if (!KEYS.has(key)) problems.push(`unknown key '${key}' (known: ${[...KEYS].join(', ')})`);
  if (typeof file.name !== 'string' || file.name.trim() === '') problems.push('name must be a non-empty string');
  if (file.description !== undefined && typeof file.description !== 'string') problems.push('description must be a string');
  if (!Array.isArray(file.workflows) || file.workflows.length === 0 || file.workflows.some((w) => typeof w !== 'string' || w === ''))
    problems.push('workflows must be a non-empty list of manifest files or workflow ids');
  if (
    file.adapters !== undefined &&
    (!Array.isArray(file.adapters) || file.adapters.some((a) => !(ADAPTERS as readonly string[]).includes(a as string)))
  )
    problems.push(`adapters must be a list of ${ADAPTERS.join(', ')}`);
  if (file.allowAnonymous !== undefined && typeof file.allowAnonymous !== 'boolean') problems.push('allowAnonymous must be true or false');
  if (problems.length > 0)
    throw new CliError('INVALID_FILE', `${path}: ${problems.join('; ')}`, 'Fix the deploy file and run it again.', { problems });
  return file as unknown as DeployFile;
}

export async function deploy(options: { api: Api; file: string; dryRun: boolean; out: Output }) {
  const { api, out } = options;
  const path = resolve(options.file);
  const file = readDeployFile(path);
  const workflowIds = file.workflows.map((reference) => workflowIdOf(dirname(path), api.service, reference));
  out.progress('Looking for the deployment…');
  const existing = (await api.list<Deployment>('/deployments')).find((d) => d.name === file.name);
  const body = {
    name: file.name,
    description: file.description,
    workflowIds,
    enabledAdapters: file.adapters,
    allowAnonymous: file.allowAnonymous,
  };
  if (options.dryRun)
    return { dryRun: true, action: existing ? 'update' : 'create', deploymentId: existing?.deploymentId ?? null, ...body };
  out.progress(existing ? `Updating ${existing.deploymentId}…` : 'Creating the deployment…');
  const saved = existing
    ? await api.call<Deployment>('PUT', `/deployments/${encodeURIComponent(existing.deploymentId)}`, body)
    : await api.call<Deployment>('POST', '/deployments', body);
  return { dryRun: false, action: existing ? 'updated' : 'created', ...saved };
}
