/**
 * Bounds on what one manifest may hold (the specification sets none; docs/manifest.md, "Limits").
 * They keep one stored manifest, and so every answer that carries manifests, to a known size.
 */
export const MANIFEST_LIMITS = {
  /** Bytes of the manifest's JSON text (UTF-8, as stored and served). */
  maxBytes: 256 * 1024,
} as const;

const encoder = new TextEncoder();

/** The size of a manifest's JSON text in bytes (TextEncoder: the browser's check counts the same). */
export function manifestBytes(manifest: unknown): number {
  return encoder.encode(JSON.stringify(manifest) ?? '').length;
}
