/**
 * The published JSON Schema of the manifest. The file carries a placeholder `$id` because
 * the real address depends on where the service runs; it is rewritten per request.
 */
import schemaFile from './workflow-manifest.v1.0.schema.json' with { type: 'json' };

/** The schema as shipped; treat as read-only (ajv compiles it, `manifestSchemaDocument` copies it). */
export const manifestSchema: Readonly<Record<string, unknown>> = schemaFile;

/** A fresh copy of the schema whose `$id` is the address it is served from. */
export function manifestSchemaDocument(schemaUrl: string): Record<string, unknown> {
  const copy = structuredClone(schemaFile) as Record<string, unknown>;
  copy.$id = schemaUrl;
  return copy;
}
