import { useState } from 'react';
import { Button, Checkbox, CheckboxGroup, Label, Switch } from 'react-aria-components';
import { Link } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ADAPTER_LABELS, ADAPTERS } from '../adapters';
import { CheckResult } from '../components/CheckResult';
import { ConfirmButton } from '../components/ConfirmButton';
import { ManifestDiff } from '../components/VersionHistory';
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
        update {
          fromVersion
          latestVersion
          held
          check {
            status
            summary
            findings {
              rule
              severity
              field
              excerpt
              message
            }
          }
          changes {
            path
          }
        }
      }
    }
  }
`);
const AcceptUpdate = graphql(`
  mutation AcceptLibraryUpdate($workflowId: String!, $version: String) {
    acceptLibraryUpdate(workflowId: $workflowId, version: $version) {
      workflowId
      workflowVersion
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
  const accept = useMutation(AcceptUpdate);
  const [removed, setRemoved] = useState<string | null>(null);
  return (
    <>
      <h1>Library</h1>
      <p className="lead">Your own workflows, forks and subscriptions. Active entries can go into deployments.</p>
      {(error ?? update.error ?? remove.error ?? accept.error) && (
        <ErrorNotice error={(error ?? update.error ?? remove.error ?? accept.error)!} onRetry={reload} />
      )}
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
            {e.update && (
              <section className="update" aria-label={`Update available: ${e.workflowName}`}>
                <h3>
                  Update available: {e.update.fromVersion} → {e.update.latestVersion}
                  {e.update.held && ' (held for your review)'}
                </h3>
                {e.update.held && (
                  <p className="hint">
                    This entry follows updates, but the publishing check found something in this version: it waits until you accept it.
                  </p>
                )}
                <CheckResult check={e.update.check} label={`Publishing check of version ${e.update.latestVersion}`} />
                <details>
                  <summary>What changed ({e.update.changes.map((c) => c.path).join(', ') || 'nothing an agent sees'})</summary>
                  <ManifestDiff workflowId={e.workflowId} from={e.update.fromVersion} to={e.update.latestVersion} />
                </details>
                <Button
                  isDisabled={accept.pending}
                  onPress={async () => {
                    if (await accept.run({ workflowId: e.workflowId, version: e.update!.latestVersion })) {
                      setRemoved(`“${e.workflowName}” now uses version ${e.update!.latestVersion}.`);
                      reload();
                    }
                  }}
                >
                  Accept version {e.update.latestVersion}
                </Button>
              </section>
            )}
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
