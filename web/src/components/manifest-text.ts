import { stringify } from 'yaml';

/**
 * A stored manifest as YAML for people: the service keeps manifests as JSON data, which loses the
 * author's key order, so the known keys are put back in the order of the manifest's JSON Schema
 * and any other keys follow in their stored order.
 */
const TOP = ['$schema', 'manifest_version', 'name', 'intent', 'context', 'steps', 'outputs', 'adapters'];
const STEP = ['id', 'name', 'action', 'agent', 'depends_on', 'parameters', 'condition', 'retry'];

function ordered(value: unknown, keys: string[]): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in record) out[k] = record[k];
  for (const k of Object.keys(record)) if (!(k in out)) out[k] = record[k];
  return out;
}

export function manifestAsYaml(manifest: unknown): string {
  const top = ordered(manifest, TOP) as Record<string, unknown>;
  if (top && Array.isArray(top.steps)) top.steps = top.steps.map((s) => ordered(s, STEP));
  return stringify(top);
}
