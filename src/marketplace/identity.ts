const MAX_HANDLE = 50;
const PLAIN_NAME = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/**
 * The handle of a user's public identity (owner of a marketplace workflow, author of a review;
 * the e-mail address is never part of it, not even as a fallback): the display name the identity provider gave, when there is one that cannot be an e-mail
 * address (some providers put the address in the name claim); otherwise a stable pseudonym
 * from the user id, `user-` and its first 8 characters after the prefix.
 */
export function handleOf(user: { id: string; displayName: string | null }): string {
  const given = user.displayName ?? '';
  // Printable ASCII words with single spaces between them are their own normal form (every
  // rendering of a workflow for agents asks for its author's handle).
  if (given.length <= MAX_HANDLE && PLAIN_NAME.test(given)) return given.includes('@') ? pseudonymOf(user.id) : given;
  const name = given.normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (name && !name.includes('@')) return [...name].slice(0, MAX_HANDLE).join('');
  return pseudonymOf(user.id);
}

/**
 * The stable, unique pseudonym of a user, `user-` and the first 8 characters of the id after its
 * prefix: what names an author beside their chosen display name, which they may change.
 */
export function pseudonymOf(userId: string): string {
  const rest = userId.includes('_') ? userId.slice(userId.indexOf('_') + 1) : userId;
  return `user-${rest.slice(0, 8).toLowerCase()}`;
}
