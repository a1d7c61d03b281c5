import { Suspense, lazy } from 'react';
import { Switch } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { NotFound } from '../components/NotFound';
import { IdeSetup } from '../components/IdeSetup';
import { ADAPTER_LABELS, ADAPTERS } from '../adapters';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatDate } from '../format';
import { graphql } from '../gql';
import type { Adapter } from '../gql/graphql';

const UsageChart = lazy(() => import('../components/UsageChart').then((m) => ({ default: m.UsageChart })));

const DeploymentQuery = graphql(`
  query Deployment($deploymentId: String!) {
    deployment(deploymentId: $deploymentId) {
      deploymentId
      name
      description
      status
      allowAnonymous
      enabledAdapters
      mcpEndpoint
      createdAt
      workflows {
        workflowId
        name
        version
        isOwned
        available
        unavailableReason
      }
    }
    deploymentUsage(deploymentId: $deploymentId, period: month) {
      from
      to
      connections {
        total
        limit
        remaining
      }
      adapterCounts {
        adapter
        count
      }
      byDay {
        date
        count
      }
    }
  }
`);

const Activate = graphql(`
  mutation ActivateDeployment($deploymentId: String!) {
    activateDeployment(deploymentId: $deploymentId) {
      deploymentId
      status
    }
  }
`);
const Deactivate = graphql(`
  mutation DeactivateDeployment($deploymentId: String!) {
    deactivateDeployment(deploymentId: $deploymentId) {
      deploymentId
      status
    }
  }
`);
const SetAdapter = graphql(`
  mutation SetDeploymentAdapter($deploymentId: String!, $adapter: Adapter!, $enabled: Boolean!) {
    setDeploymentAdapter(deploymentId: $deploymentId, adapter: $adapter, enabled: $enabled) {
      enabledAdapters
    }
  }
`);
const Delete = graphql(`
  mutation DeleteDeployment($deploymentId: String!) {
    deleteDeployment(deploymentId: $deploymentId) {
      deleted
    }
  }
`);

export default function DeploymentPage() {
  const { id } = useParams<{ id: string }>();
  const { data, error, reload } = useQuery(DeploymentQuery, { deploymentId: id });
  const activate = useMutation(Activate);
  const deactivate = useMutation(Deactivate);
  const setAdapter = useMutation(SetAdapter);
  const remove = useMutation(Delete);
  const [, navigate] = useLocation();
  const actionError = activate.error ?? deactivate.error ?? setAdapter.error ?? remove.error;

  if (error?.code === 'NOT_FOUND') return <NotFound what="Deployment" />;
  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const d = data.deployment;
  const usage = data.deploymentUsage;
  const active = d.status === 'active';

  return (
    <>
      <p>
        <Link href="/deployments">← Deployments</Link>
      </p>
      <h1>{d.name}</h1>
      {d.description && <p className="lead">{d.description}</p>}
      {actionError && <ErrorNotice error={actionError} />}
      <section aria-labelledby="state">
        <h2 id="state">State</h2>
        <Switch
          isSelected={active}
          isDisabled={activate.pending || deactivate.pending}
          onChange={async (on) => {
            if (on) await activate.run({ deploymentId: d.deploymentId });
            else await deactivate.run({ deploymentId: d.deploymentId });
            reload();
          }}
        >
          <span className="track" aria-hidden="true" />
          Active {active ? '' : '(the endpoint answers 403 while inactive)'}
        </Switch>
        <h3>Adapters</h3>
        {ADAPTERS.map((a) => (
          <Switch
            key={a}
            isSelected={d.enabledAdapters.includes(a)}
            onChange={async (on) => {
              await setAdapter.run({ deploymentId: d.deploymentId, adapter: a as Adapter, enabled: on });
              reload();
            }}
          >
            <span className="track" aria-hidden="true" />
            {ADAPTER_LABELS[a]}
          </Switch>
        ))}
        <h3>Workflows</h3>
        <ul>
          {d.workflows.map((w) => (
            <li key={w.workflowId}>
              {w.isOwned ? (
                <Link href={`/workflows/${w.workflowId}`}>{w.name}</Link>
              ) : (
                <Link href={`/marketplace/${w.workflowId}`}>{w.name}</Link>
              )}{' '}
              <span className="hint">v{w.version}</span>
              {!w.available && <p className="notice">Not served by this endpoint: {w.unavailableReason}</p>}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="connect">
        <h2 id="connect">Set up an IDE</h2>
        <p>
          <Link href={`/deployments/${d.deploymentId}/install`}>Install into any agent client</Link>: install links, commands and steps for
          Claude Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex and more.
        </p>
        <IdeSetup deploymentId={d.deploymentId} name={d.name} endpoint={d.mcpEndpoint} anonymous={d.allowAnonymous} />
      </section>
      <section aria-labelledby="usage">
        <h2 id="usage">Usage this month</h2>
        <p>
          {usage.connections.total} connection{usage.connections.total === 1 ? '' : 's'} of {usage.connections.limit} (
          {usage.connections.remaining} left), {formatDate(usage.from)} to {formatDate(usage.to)}.
        </p>
        <Suspense fallback={<p>Loading the chart…</p>}>
          <UsageChart byDay={usage.byDay} byAdapter={usage.adapterCounts} />
        </Suspense>
      </section>
      <section aria-labelledby="danger">
        <h2 id="danger">Delete</h2>
        <ConfirmButton
          label="Delete deployment"
          title={`Delete ${d.name}?`}
          confirmLabel="Delete for good"
          pending={remove.pending}
          onConfirm={async () => {
            if (await remove.run({ deploymentId: d.deploymentId })) navigate('/deployments');
          }}
        >
          <p>The endpoint stops answering at once and every connected IDE is cut off. Your workflows are not deleted.</p>
        </ConfirmButton>
        <p className="hint">Created {formatDate(d.createdAt)}.</p>
      </section>
    </>
  );
}
