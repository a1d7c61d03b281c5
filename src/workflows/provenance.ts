import { handleOf, pseudonymOf } from '../marketplace/identity.js';

/**
 * Who wrote a workflow and exactly which content is served, as the services hand it to every
 * rendering of a workflow for agents (the renderers' `WorkflowProvenance`, which a service may not
 * import: src/mcp/ is a face).
 */
export interface Provenance {
  /** The author's display name, when they chose one that can be shown (never an e-mail address). */
  authorDisplayName: string | null;
  /** The author's stable pseudonym (`user-xxxxxxxx`), unique and never changed. */
  authorHandle: string;
  /** The content digest of the version served (digest.ts). */
  digest: string;
  /** True when the author is not the person whose agent is served: the deployment's owner, or the viewer. */
  thirdParty: boolean;
}

/** The provenance of a version by `author` with `digest`, served to someone else when `thirdParty`. */
export function provenanceOf(author: { id: string; displayName: string | null }, digest: string, thirdParty: boolean): Provenance {
  const authorHandle = pseudonymOf(author.id);
  // handleOf falls back to the pseudonym when the display name is empty or may be an e-mail address.
  const shown = handleOf(author);
  return { authorDisplayName: shown === authorHandle ? null : shown, authorHandle, digest, thirdParty };
}
