import { Link } from 'wouter';

/** The dashboard's own "not found": an unknown path, or a workflow or deployment that is not there (or not yours). */
export function NotFound({ what }: { what?: string }) {
  return (
    <section aria-labelledby="not-found" className="not-found">
      <h1 id="not-found">{what ? `${what} not found` : 'Page not found'}</h1>
      <p>
        {what
          ? `There is no ${what.toLowerCase()} at this address, or it is not yours to see. It may have been deleted.`
          : 'There is no page at this address. The link may be mistyped or out of date.'}
      </p>
      <ul className="links">
        <li>
          <Link href="/deployments">Your deployments</Link>
        </li>
        <li>
          <Link href="/workflows">Your workflows</Link>
        </li>
        <li>
          <Link href="/marketplace">The marketplace</Link>
        </li>
      </ul>
    </section>
  );
}
