/**
 * The public identity of a user (owner of a marketplace workflow, author of a review): the user
 * id and a handle. The e-mail address is never part of it, not even as a fallback.
 */
export interface PublicIdentity {
  userId: string;
  handle: string;
}

const MAX_HANDLE = 50;

/**
 * The display name the identity provider gave, when there is one that cannot be an e-mail
 * address (some providers put the address in the name claim); otherwise a stable pseudonym
 * from the user id, `user-` and its first 8 characters after the prefix.
 */
export function handleOf(user: { id: string; displayName: string | null }): string {
  const name = (user.displayName ?? '').normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (name && !name.includes('@')) return [...name].slice(0, MAX_HANDLE).join('');
  const rest = user.id.includes('_') ? user.id.slice(user.id.indexOf('_') + 1) : user.id;
  return `user-${rest.slice(0, 8).toLowerCase()}`;
}
