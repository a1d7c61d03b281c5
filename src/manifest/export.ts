/**
 * A manifest as a downloadable document, JSON or YAML. Both forms must read back as
 * the same data, whatever YAML reader the user has. The third format, `skill` (a SKILL.md
 * for an adapter), is rendered by the MCP rendering layer from the same workflow.
 */
import { Document, parse, Scalar, visit } from 'yaml';
import { AppError } from '../errors.js';
import type { WorkflowManifest } from './types.js';

const EXPORT_FORMATS = ['json', 'yaml', 'skill'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function parseExportFormat(value: unknown): ExportFormat {
  if (value === undefined) return 'json';
  if (typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  const got = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? typeof value);
  throw new AppError('VALIDATION_ERROR', `format must be one of ${EXPORT_FORMATS.map((f) => `'${f}'`).join(', ')}; got ${got}`, {
    field: 'format',
    allowed: [...EXPORT_FORMATS],
  });
}

/** YAML 1.1 scalars (booleans, sexagesimals, dates) are all short, single-line words. */
const MAX_AMBIGUOUS_LENGTH = 64;

/**
 * The yaml package writes YAML 1.2 and quotes what 1.2 would misread ("1.0", "null").
 * Many readers still follow YAML 1.1, where plain `yes`, `on`, `1:20` or `2001-12-14`
 * are not strings, so such strings are quoted as well.
 */
function misreadByYaml11(value: string): boolean {
  if (value.length === 0 || value.length > MAX_AMBIGUOUS_LENGTH || /[\n\r]/.test(value)) return false;
  try {
    return parse(value, { version: '1.1', logLevel: 'silent' }) !== value;
  } catch {
    return false;
  }
}

function toYaml(manifest: WorkflowManifest): string {
  const doc = new Document(manifest);
  visit(doc, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && node.type !== Scalar.QUOTE_DOUBLE && misreadByYaml11(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  // No folding: long intents stay on one line, so diffs of exported manifests stay readable.
  return doc.toString({ lineWidth: 0 });
}

export function exportManifest(manifest: WorkflowManifest, format: Exclude<ExportFormat, 'skill'>): { body: string; contentType: string } {
  if (format === 'yaml') return { body: toYaml(manifest), contentType: 'application/yaml' };
  return { body: JSON.stringify(manifest, null, 2) + '\n', contentType: 'application/json' };
}
