/**
 * Bounds on what one manifest may hold (the specification sets none; docs/manifest.md, "Limits").
 * They keep one stored manifest, and so every answer that carries manifests, to a known size.
 */
export const MANIFEST_LIMITS = {
  /** Bytes of the manifest's JSON text (UTF-8, as stored and served). */
  maxBytes: 256 * 1024,
  /**
   * Steps of one manifest. A renderer may give each step a tool of its own (adapter_three's
   * function_calling mode), so the steps bound the tools a deployment's list holds.
   */
  maxSteps: 200,
} as const;

const encoder = new TextEncoder();

/** The size of a manifest's JSON text in bytes (TextEncoder: the browser's check counts the same). */
export function manifestBytes(manifest: unknown): number {
  return encoder.encode(JSON.stringify(manifest) ?? '').length;
}
