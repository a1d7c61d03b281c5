import { useState } from 'react';
import { useMutation, useQuery } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { ConfirmButton } from './ConfirmButton';
import { formatDate } from '../format';

const AppsQuery = graphql(`
  query ConnectedApps {
    connectedApps {
      connectedAppId
      clientId
      clientName
      deploymentIds
      connectedAt
      expiresAt
    }
    deployments(limit: 100) {
      data {
        deploymentId
        name
      }
    }
  }
`);
const Disconnect = graphql(`
  mutation DisconnectApp($connectedAppId: String!) {
    disconnectApp(connectedAppId: $connectedAppId) {
      connectedAppId
      deleted
    }
  }
`);

/** The Account page's connected applications (MCP clients signed in with OAuth): the list, and disconnect. */
export function ConnectedApps() {
  const { data, error, reload } = useQuery(AppsQuery);
  const disconnect = useMutation(Disconnect);
  const [done, setDone] = useState('');

  const deploymentNames = new Map((data?.deployments.data ?? []).map((d) => [d.deploymentId, d.name]));
  const uses = (ids: string[]) => (ids.length === 0 ? '—' : ids.map((id) => deploymentNames.get(id) ?? id).join(', '));

  return (
    <section aria-labelledby="connected-apps">
      <h2 id="connected-apps">Connected applications</h2>
      <p className="hint">
        IDEs and other MCP clients you allowed, when they asked, to use the tool endpoints of your deployments. They hold tokens of their
        own, renewed while they are used.
      </p>
      {error && !data && <ErrorNotice error={error} onRetry={reload} />}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {disconnect.error && <ErrorNotice error={disconnect.error} />}
      <p role="status" className="hint">
        {done}
      </p>
      {data &&
        (data.connectedApps.length === 0 ? (
          <p className="empty">No connected applications.</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Your connected applications (scrolls sideways)">
            <table className="cards-on-phone">
              <caption className="sr-only">Your connected applications</caption>
              <thead>
                <tr>
                  <th scope="col">Application</th>
                  <th scope="col">Deployments</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Lapses if unused</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.connectedApps.map((a) => (
                  <tr key={a.connectedAppId}>
                    <th scope="row">
                      {a.clientName}
                      {/* A client known by its metadata document is named by its host: its full address says who it is. */}
                      {a.clientId.startsWith('https://') && a.clientName !== a.clientId && (
                        <div className="hint">
                          <code>{a.clientId}</code>
                        </div>
                      )}
                    </th>
                    <td data-label="Deployments">{uses(a.deploymentIds)}</td>
                    <td data-label="Connected">{formatDate(a.connectedAt)}</td>
                    <td data-label="Lapses if unused">{a.expiresAt ? formatDate(a.expiresAt) : 'never'}</td>
                    <td data-label="">
                      <ConfirmButton
                        label="Disconnect"
                        accessibleName={`Disconnect ${a.clientName}`}
                        title={`Disconnect “${a.clientName}”?`}
                        confirmLabel="Disconnect"
                        pending={disconnect.pending}
                        onConfirm={async () => {
                          if (await disconnect.run({ connectedAppId: a.connectedAppId })) {
                            setDone(`“${a.clientName}” disconnected.`);
                            reload();
                          }
                        }}
                      >
                        <p>
                          Its tokens stop working at once: its next request to {uses(a.deploymentIds)} is refused. To use it again it must
                          ask you again.
                        </p>
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
