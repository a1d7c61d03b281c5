import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportManifest } from '../../src/manifest/export.js';
import type { ManifestErrorCode, WorkflowManifest } from '../../src/manifest/types.js';
import { parseManifestInput, validateManifest } from '../../src/manifest/validate.js';

const doc = readFileSync(new URL('../../docs/manifest.md', import.meta.url), 'utf8');

function exampleBlock(lang: 'json' | 'yaml'): string {
  const section = doc.split('\n## Complete example\n')[1]?.split('\n## ')[0];
  if (section === undefined) throw new Error('docs/manifest.md has no "Complete example" section');
  const block = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(section);
  if (!block) throw new Error(`the "Complete example" section has no ${lang} block`);
  return block[1]!;
}

const CODES: Record<ManifestErrorCode, true> = {
  invalid_step_id: true,
  circular_dependency: true,
  missing_required_field: true,
  unknown_action: true,
  duplicate_step_id: true,
  unknown_dependency: true,
  unknown_step_reference: true,
  unsupported_manifest_version: true,
  invalid_type: true,
  invalid_value: true,
  unknown_property: true,
  too_large: true,
};

describe('docs/manifest.md', () => {
  it('has a complete JSON example that passes validation', () => {
    const result = validateManifest(JSON.parse(exampleBlock('json')));
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has the same example in YAML, as the export writes it', () => {
    const manifest = JSON.parse(exampleBlock('json')) as WorkflowManifest;
    expect(parseManifestInput(exampleBlock('yaml'))).toEqual(manifest);
    expect(exampleBlock('yaml') + '\n').toBe(exportManifest(manifest, 'yaml').body);
  });

  it('documents every error code', () => {
    for (const code of Object.keys(CODES)) expect(doc).toContain(`| \`${code}\` |`);
  });

  it('shows request bodies that validate as described', () => {
    const bodies = [...doc.matchAll(/^(\{ "manifest": .*\})$/gm)].map((m) => JSON.parse(m[1]!) as { manifest: unknown });
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect(validateManifest(parseManifestInput(body.manifest)).valid).toBe(true);
  });
});
