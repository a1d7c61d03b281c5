/** A date as the pages show it ("Nov 25, 2026"), or a dash when there is none. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** "1 deployment", "2 deployments": the service's own helper, so every face words counts alike. */
export { isOrAre, plural } from '../../src/text';
