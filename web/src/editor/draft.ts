import { useEffect, useRef } from 'react';

/**
 * Edits that survive leaving the editor: while a workflow's form differs from what was loaded, the
 * form is kept in the browser's local storage under the workflow's id (or `new`), restored when the
 * editor opens again, and dropped once saved. Leaving by reload or tab close asks first (the
 * browser's own prompt), and so does a link inside the dashboard.
 */

export interface DraftFields {
  name: string;
  description: string;
  category: string;
  tags: string;
  visibility: 'public' | 'private';
  manifest: string;
}

export interface StoredDraft {
  fields: DraftFields;
  /** When the draft was last written, ISO 8601. */
  savedAt: string;
}

const PREFIX = 'workflow-draft:';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    // Storage refused (a privacy setting): edits are not kept, the prompt before leaving still is.
    return null;
  }
}

export function loadDraft(key: string): StoredDraft | null {
  const raw = storage()?.getItem(PREFIX + key);
  if (!raw) return null;
  try {
    const draft = JSON.parse(raw) as StoredDraft;
    return draft && typeof draft.fields?.manifest === 'string' ? draft : null;
  } catch {
    return null;
  }
}

export function storeDraft(key: string, fields: DraftFields): void {
  try {
    storage()?.setItem(PREFIX + key, JSON.stringify({ fields, savedAt: new Date().toISOString() } satisfies StoredDraft));
  } catch {
    // Full storage: the prompt before leaving still protects the edits.
  }
}

export function clearDraft(key: string): void {
  storage()?.removeItem(PREFIX + key);
}

export function sameFields(a: DraftFields, b: DraftFields): boolean {
  return (Object.keys(a) as (keyof DraftFields)[]).every((k) => a[k] === b[k]);
}

const LEAVE_MESSAGE = 'You have unsaved changes. Leave this page? Your draft stays in this browser and is offered when you come back.';

/**
 * While `dirty`, asks before the page is left: the browser's own prompt for a reload or a closed
 * tab, and a confirmation for a link inside the dashboard (clicked links are caught before the
 * router sees them).
 */
export function useLeaveGuard(dirty: boolean): void {
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    const click = (event: MouseEvent) => {
      if (!dirtyRef.current || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!anchor || anchor.target === '_blank' || anchor.hasAttribute('download')) return;
      const url = new URL(anchor.href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      if (!window.confirm(LEAVE_MESSAGE)) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    // Capture phase: before the router's own link handler.
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, []);
}
