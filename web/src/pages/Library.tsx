import { useState } from 'react';
import { Checkbox, CheckboxGroup, Label, Switch } from 'react-aria-components';
import { Link } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ADAPTER_LABELS, ADAPTERS } from '../adapters';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatDate } from '../format';
import { graphql } from '../gql';
import type { Adapter } from '../gql/graphql';

const LibraryQuery = graphql(`
  query Library {
    library(limit: 100) {
      data {
        workflowId
        workflowName
        workflowVersion
        sourceType
        isActive
        autoUpdate
        enabledAdapters
        addedAt
      }
    }
  }
`);
const UpdateEntry = graphql(`
  mutation UpdateLibraryEntry($workflowId: String!, $isActive: Boolean, $enabledAdapters: [Adapter!]) {
    updateLibraryEntry(workflowId: $workflowId, isActive: $isActive, enabledAdapters: $enabledAdapters) {
      workflowId
      isActive
      enabledAdapters
    }
  }
`);

const RemoveEntry = graphql(`
  mutation RemoveLibraryEntry($workflowId: String!) {
    removeFromLibrary(workflowId: $workflowId) {
      workflowId
    }
  }
`);

export default function Library() {
  const { data, error, reload } = useQuery(LibraryQuery);
  const update = useMutation(UpdateEntry);
  const remove = useMutation(RemoveEntry);
  const [removed, setRemoved] = useState<string | null>(null);
  return (
    <>
      <h1>Library</h1>
      <p className="lead">Your own workflows, forks and subscriptions. Active entries can go into deployments.</p>
      {(error ?? update.error ?? remove.error) && <ErrorNotice error={(error ?? update.error ?? remove.error)!} onRetry={reload} />}
      <p role="status">{removed}</p>
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {data && data.library.data.length === 0 && (
        <p className="empty">
          Your library is empty. <Link href="/marketplace">Find workflows in the marketplace</Link>.
        </p>
      )}
      <ul className="cards">
        {data?.library.data.map((e) => (
          <li key={e.workflowId} className="card">
            <h2>
              {e.sourceType === 'subscribed' ? (
                <Link href={`/marketplace/${e.workflowId}`}>{e.workflowName}</Link>
              ) : (
                <Link href={`/workflows/${e.workflowId}`}>{e.workflowName}</Link>
              )}
            </h2>
            <p className="hint">
              {e.sourceType} · version {e.workflowVersion} · {e.autoUpdate ? 'updates automatically' : 'pinned to this version'} · added{' '}
              {formatDate(e.addedAt)}
            </p>
            <Switch
              isSelected={e.isActive}
              onChange={async (on) => {
                await update.run({ workflowId: e.workflowId, isActive: on });
                reload();
              }}
            >
              <span className="track" aria-hidden="true" />
              Active
            </Switch>
            <CheckboxGroup
              value={e.enabledAdapters}
              onChange={async (list) => {
                if (list.length === 0) return;
                await update.run({ workflowId: e.workflowId, enabledAdapters: list as Adapter[] });
                reload();
              }}
            >
              <Label>Adapters</Label>
              {ADAPTERS.map((a) => (
                <Checkbox key={a} value={a}>
                  <span className="box" aria-hidden="true" />
                  {ADAPTER_LABELS[a]}
                </Checkbox>
              ))}
            </CheckboxGroup>
            <div className="row">
              <ConfirmButton
                label={e.sourceType === 'subscribed' ? 'Unsubscribe' : 'Remove from library'}
                accessibleName={`${e.sourceType === 'subscribed' ? 'Unsubscribe' : 'Remove from library'}: ${e.workflowName}`}
                title={
                  e.sourceType === 'subscribed' ? `Unsubscribe from ${e.workflowName}?` : `Remove ${e.workflowName} from your library?`
                }
                confirmLabel={e.sourceType === 'subscribed' ? 'Unsubscribe' : 'Remove'}
                pending={remove.pending}
                onConfirm={async () => {
                  if (await remove.run({ workflowId: e.workflowId })) {
                    setRemoved(`“${e.workflowName}” left your library.`);
                    reload();
                  }
                }}
              >
                <p>
                  {e.sourceType === 'owned'
                    ? 'The workflow itself stays in Workflows; it only leaves your library and the deployments that use it.'
                    : 'It leaves your library and the deployments that use it; a subscription frees a place of your plan.'}
                </p>
              </ConfirmButton>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
