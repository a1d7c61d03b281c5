import { useState } from 'react';
import { Checkbox, CheckboxGroup, Form, Input, Label, Switch, TextField } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ADAPTER_LABELS, ADAPTERS } from '../adapters';
import { ReasonButton } from '../components/ReasonButton';
import { formatDate, isOrAre, plural } from '../format';
import { lengthProblem, TEXT_LIMITS } from '../rules';
import { graphql } from '../gql';
import type { Adapter } from '../gql/graphql';

const DeploymentsQuery = graphql(`
  query Deployments {
    deployments(limit: 50) {
      data {
        deploymentId
        name
        status
        allowAnonymous
        enabledAdapters
        createdAt
        workflows {
          workflowId
          name
        }
        usage {
          connectionsThisMonth
          lastConnectedAt
        }
      }
    }
    library(activeOnly: true, limit: 100) {
      data {
        workflowId
        workflowName
        workflowVersion
        sourceType
      }
    }
    me {
      plan
      usage {
        deployments {
          used
          limit
        }
      }
    }
    billingPrices
  }
`);

const CreateDeployment = graphql(`
  mutation CreateDeployment($name: String!, $workflowIds: [String!]!, $enabledAdapters: [Adapter!], $allowAnonymous: Boolean) {
    createDeployment(name: $name, workflowIds: $workflowIds, enabledAdapters: $enabledAdapters, allowAnonymous: $allowAnonymous) {
      deploymentId
    }
  }
`);

export default function Deployments() {
  const { data, error, loading, reload } = useQuery(DeploymentsQuery);
  const create = useMutation(CreateDeployment);
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<string[]>([]);
  const [adapters, setAdapters] = useState<string[]>([...ADAPTERS]);
  const [anonymous, setAnonymous] = useState(false);

  return (
    <>
      <h1>Deployments</h1>
      <p className="lead">A deployment bundles workflows of your library behind one MCP endpoint for your IDE.</p>
      {error && <ErrorNotice error={error} onRetry={reload} />}
      {loading && !data && <p aria-live="polite">Loading…</p>}
      {data && (
        <>
          {data.deployments.data.length === 0 ? (
            <p className="empty">No deployments yet. Create one below from the workflows in your library.</p>
          ) : (
            <ul className="cards">
              {data.deployments.data.map((d) => (
                <li key={d.deploymentId} className="card">
                  <h2>
                    <Link href={`/deployments/${d.deploymentId}`}>{d.name}</Link>
                  </h2>
                  <p>
                    <span className={`badge ${d.status}`}>{d.status}</span>{' '}
                    {d.allowAnonymous ? <span className="badge">anonymous access</span> : null}
                  </p>
                  <p>{d.workflows.map((w) => w.name).join(', ') || 'no workflows'}</p>
                  <p className="hint">
                    {d.usage.connectionsThisMonth} connection{d.usage.connectionsThisMonth === 1 ? '' : 's'} this month · last{' '}
                    {formatDate(d.usage.lastConnectedAt)}
                  </p>
                </li>
              ))}
            </ul>
          )}
          <section aria-labelledby="new-deployment">
            <h2 id="new-deployment">New deployment</h2>
            <PlanRoom plan={data.me.plan} {...data.me.usage.deployments} canUpgrade={data.billingPrices.length > 0} />
            {data.me.usage.deployments.used >= data.me.usage.deployments.limit ? null : data.library.data.length === 0 ? (
              <p className="empty">
                Your library has no active workflows. <Link href="/workflows/new">Write a workflow</Link> or{' '}
                <Link href="/marketplace">subscribe to one</Link> first.
              </p>
            ) : (
              <Form
                className="stack"
                onSubmit={async (e) => {
                  e.preventDefault();
                  const created = await create.run({
                    name: name.trim(),
                    workflowIds: picked,
                    enabledAdapters: adapters as Adapter[],
                    allowAnonymous: anonymous,
                  });
                  if (created) navigate(`/deployments/${created.createDeployment.deploymentId}`);
                }}
              >
                <TextField value={name} onChange={setName} isRequired>
                  <Label>Name</Label>
                  <Input />
                </TextField>
                <CheckboxGroup value={picked} onChange={setPicked} isRequired>
                  <Label>Workflows from your library</Label>
                  {data.library.data.map((entry) => (
                    <Checkbox key={entry.workflowId} value={entry.workflowId}>
                      <span className="box" aria-hidden="true" />
                      {entry.workflowName}{' '}
                      <span className="hint">
                        v{entry.workflowVersion} · {entry.sourceType}
                      </span>
                    </Checkbox>
                  ))}
                </CheckboxGroup>
                <CheckboxGroup value={adapters} onChange={setAdapters}>
                  <Label>Adapters</Label>
                  {ADAPTERS.map((a) => (
                    <Checkbox key={a} value={a}>
                      <span className="box" aria-hidden="true" />
                      {ADAPTER_LABELS[a]}
                    </Checkbox>
                  ))}
                </CheckboxGroup>
                <Switch isSelected={anonymous} onChange={setAnonymous}>
                  <span className="track" aria-hidden="true" />
                  Anyone with the URL may connect (no token)
                </Switch>
                {create.error && <ErrorNotice error={create.error} />}
                <ReasonButton
                  type="submit"
                  pending={create.pending}
                  reason={
                    lengthProblem('The name', name, TEXT_LIMITS.name, true) ??
                    (picked.length === 0 ? 'Pick at least one workflow.' : adapters.length === 0 ? 'Pick at least one adapter.' : null)
                  }
                >
                  Create deployment
                </ReasonButton>
              </Form>
            )}
          </section>
        </>
      )}
    </>
  );
}

/**
 * The plan's room for deployments, said before the form: how many it allows and how many are used,
 * and at the limit what to do instead of a form that could only be refused.
 */
function PlanRoom({ plan, used, limit, canUpgrade }: { plan: string; used: number; limit: number; canUpgrade: boolean }) {
  const unlimited = limit < 0 || limit >= 2_000_000_000;
  if (unlimited) return null;
  const allows = `The ${plan} plan allows ${plural(limit, 'deployment')}`;
  if (used < limit) return <p className="hint">{`${allows}; ${used} ${isOrAre(used)} used.`}</p>;
  return (
    <div className="notice" role="status">
      <strong>Your plan’s limit of deployments is reached</strong>
      <p>
        {`${allows} and ${used} ${isOrAre(used)} used: delete a deployment first`}
        {canUpgrade ? (
          <>
            , or <Link href="/account">upgrade the plan</Link>.
          </>
        ) : (
          '. Billing is not set up on this service, so the plan is set by its operator.'
        )}
      </p>
    </div>
  );
}
