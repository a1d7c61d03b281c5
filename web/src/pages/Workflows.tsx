import { Link } from 'wouter';
import { useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDate } from '../format';
import { graphql } from '../gql';

const WorkflowsQuery = graphql(`
  query Workflows {
    workflows(limit: 100) {
      data {
        workflowId
        name
        description
        visibility
        currentVersion
        updatedAt
        stats {
          subscribers
          forks
          rating
          ratingCount
        }
      }
    }
  }
`);

export default function Workflows() {
  const { data, error, reload } = useQuery(WorkflowsQuery);
  return (
    <>
      <div className="title-row">
        <h1>Workflows</h1>
        <Link href="/workflows/new" className="button">
          New workflow
        </Link>
      </div>
      {error && <ErrorNotice error={error} onRetry={reload} />}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {data && data.workflows.data.length === 0 && (
        <p className="empty">You have no workflows yet. Write one, or fork one from the marketplace.</p>
      )}
      {data && data.workflows.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Your workflows (scrolls sideways)">
          <table className="cards-on-phone">
            <caption className="sr-only">Your workflows</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Visibility</th>
                <th scope="col">Version</th>
                <th scope="col">Subscribers</th>
                <th scope="col">Forks</th>
                <th scope="col">Rating</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.workflows.data.map((w) => (
                <tr key={w.workflowId}>
                  <th scope="row">
                    <Link href={`/workflows/${w.workflowId}`}>{w.name}</Link>
                  </th>
                  <td data-label="Visibility">
                    <span className={`badge ${w.visibility}`}>{w.visibility}</span>
                  </td>
                  <td data-label="Version">{w.currentVersion}</td>
                  <td data-label="Subscribers">{w.stats.subscribers}</td>
                  <td data-label="Forks">{w.stats.forks}</td>
                  <td data-label="Rating">{w.stats.ratingCount ? `${w.stats.rating.toFixed(1)} (${w.stats.ratingCount})` : '—'}</td>
                  <td data-label="Updated">{formatDate(w.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
