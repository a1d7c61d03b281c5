import { useState } from 'react';
import { useMutation, useQuery } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { ConfirmButton } from './ConfirmButton';
import { formatDate } from '../format';

const MethodsQuery = graphql(`
  query SignInMethods {
    signInMethods {
      id
      method
      label
      email
      createdAt
    }
    signInMethodsToAdd
  }
`);
const Remove = graphql(`
  mutation RemoveSignInMethod($id: ID!) {
    removeSignInMethod(id: $id) {
      deleted
    }
  }
`);

const KIND = { email: 'E-mail link', github: 'GitHub', oidc: 'Identity provider' } as const;

/**
 * The Account page's ways in: the list, removing one (never the last), and adding GitHub or an
 * e-mail address. Adding goes through the service's own sign-in pages (a round trip to GitHub, or a
 * link sent to the address), so these are plain links and a plain form, not API calls.
 */
export function SignInMethods() {
  const { data, error, reload } = useQuery(MethodsQuery);
  const remove = useMutation(Remove);
  const [done, setDone] = useState('');
  const methods = data?.signInMethods ?? [];
  const toAdd = data?.signInMethodsToAdd ?? [];
  const nameOf = (m: (typeof methods)[number]) => `${KIND[m.method]}${m.label ? ` (${m.label})` : ''}`;

  return (
    <section aria-labelledby="sign-in-methods">
      <h2 id="sign-in-methods">Ways to sign in</h2>
      <p className="hint">Any of these signs you in to this account. At least one stays.</p>
      {error && !data && <ErrorNotice error={error} onRetry={reload} />}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {remove.error && <ErrorNotice error={remove.error} />}
      <p role="status" className="hint">
        {done}
      </p>
      {data && (
        <ul className="sign-in-methods">
          {methods.map((m) => (
            <li key={m.id}>
              <span>
                <strong>{KIND[m.method]}</strong>
                {m.label ? ` · ${m.label}` : ''} <span className="hint">added {formatDate(m.createdAt)}</span>
              </span>
              {methods.length > 1 ? (
                <ConfirmButton
                  label="Remove"
                  accessibleName={`Remove ${nameOf(m)}`}
                  title={`Remove ${nameOf(m)}?`}
                  confirmLabel="Remove"
                  pending={remove.pending}
                  onConfirm={async () => {
                    if (await remove.run({ id: m.id })) {
                      setDone(`${nameOf(m)} removed.`);
                      reload();
                    }
                  }}
                >
                  <p>It no longer signs you in to this account. You can add it again later.</p>
                </ConfirmButton>
              ) : (
                <span className="hint">the only way in: add another to remove it</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {toAdd.includes('github') && !methods.some((m) => m.method === 'github') && (
        <p>
          <a className="button secondary" href="/sign-in/github?link=1&amp;return=%2Faccount">
            Add GitHub
          </a>
        </p>
      )}
      {toAdd.includes('email') && (
        <form method="post" action="/sign-in/email" className="row">
          <input type="hidden" name="intent" value="link" />
          <input type="hidden" name="return" value="/account" />
          <label htmlFor="add-email">Add an e-mail address</label>
          <input id="add-email" name="email" type="email" autoComplete="email" required maxLength={254} />
          <button type="submit" className="secondary">
            Send a link
          </button>
        </form>
      )}
    </section>
  );
}
