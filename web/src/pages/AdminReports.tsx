import { useState } from 'react';
import { Button, Form, Label, TextArea, TextField } from 'react-aria-components';
import { Link } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { NotFound } from '../components/NotFound';
import { formatDate } from '../format';
import { graphql } from '../gql';
import type { ModerationActionKind } from '../gql/graphql';
import { characterCount, lengthProblem, REPORT_REASON_MAX } from '../rules';
import { useViewer } from '../viewer';

/**
 * The operators' page (ADMIN_EMAILS): the open reports, an action on each reported workflow with
 * its reason, and the log of every action. To anyone else it is the dashboard's "not found", as the
 * operators' routes are (docs/marketplace.md, "Reports and takedown").
 */

const ReportsQuery = graphql(`
  query AdminReports {
    moderationReports(limit: 100) {
      data {
        reportId
        reason
        createdAt
        reporter {
          handle
        }
        workflow {
          workflowId
          name
          moderationState
          owner {
            handle
          }
        }
      }
    }
    moderationActions(limit: 50) {
      data {
        actionId
        workflowId
        workflowName
        action
        reason
        reportsClosed
        operatorEmail
        at
      }
    }
  }
`);

const Moderate = graphql(`
  mutation ModerateWorkflow($workflowId: String!, $action: ModerationActionKind!, $reason: String!) {
    moderateWorkflow(workflowId: $workflowId, action: $action, reason: $reason) {
      actionId
    }
  }
`);

const ACTIONS: [ModerationActionKind, string][] = [
  ['dismiss', 'Dismiss the reports'],
  ['unlist', 'Unlist'],
  ['suspend', 'Suspend'],
  ['reinstate', 'Reinstate'],
];

export default function AdminReports() {
  const viewer = useViewer();
  const { data, error, reload } = useQuery(ReportsQuery, undefined, { skip: !viewer?.isOperator });
  if (!viewer) return <p aria-live="polite">Loading…</p>;
  if (!viewer.isOperator || error?.code === 'NOT_FOUND') return <NotFound />;
  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;

  // One entry per reported workflow, its reports newest first.
  const byWorkflow = new Map<string, (typeof data.moderationReports.data)[number][]>();
  for (const r of data.moderationReports.data) byWorkflow.set(r.workflow.workflowId, [...(byWorkflow.get(r.workflow.workflowId) ?? []), r]);

  return (
    <>
      <h1>Reports</h1>
      <section aria-labelledby="open-reports">
        <h2 id="open-reports">Open reports</h2>
        {byWorkflow.size === 0 && <p className="empty">No open reports.</p>}
        <ul className="reports">
          {[...byWorkflow.values()].map((reports) => {
            const w = reports[0]!.workflow;
            return (
              <li key={w.workflowId}>
                <h3>
                  <Link href={`/marketplace/${w.workflowId}`}>{w.name}</Link>{' '}
                  <span className="hint">
                    by {w.owner.handle} · {w.moderationState}
                  </span>
                </h3>
                <ul>
                  {reports.map((r) => (
                    <li key={r.reportId}>
                      <p>{r.reason}</p>
                      <p className="hint">
                        {r.reporter.handle} · {formatDate(r.createdAt)}
                      </p>
                    </li>
                  ))}
                </ul>
                <ModerationForm workflowId={w.workflowId} name={w.name} onDone={reload} />
              </li>
            );
          })}
        </ul>
      </section>
      <section aria-labelledby="log">
        <h2 id="log">Log</h2>
        {data.moderationActions.data.length === 0 && <p className="empty">No actions yet.</p>}
        {data.moderationActions.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Operator</th>
                <th scope="col">Action</th>
                <th scope="col">Workflow</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {data.moderationActions.data.map((a) => (
                <tr key={a.actionId}>
                  <td>{formatDate(a.at)}</td>
                  <td>{a.operatorEmail}</td>
                  <td>
                    {a.action}
                    {a.reportsClosed > 0 && <span className="hint"> ({a.reportsClosed} closed)</span>}
                  </td>
                  <td>{a.workflowName}</td>
                  <td>{a.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

/** An action on one workflow, with the reason its author and subscribers will read. */
function ModerationForm({ workflowId, name, onDone }: { workflowId: string; name: string; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const moderate = useMutation(Moderate);
  const problem = characterCount(reason.trim()) === 0 ? 'Write the reason first.' : lengthProblem('The reason', reason, REPORT_REASON_MAX);
  return (
    <Form className="stack" aria-label={`Act on ${name}`} onSubmit={(e) => e.preventDefault()}>
      <TextField value={reason} onChange={setReason} isRequired>
        <Label>Reason (shown to the author and the subscribers)</Label>
        <TextArea rows={2} />
      </TextField>
      {moderate.error && <ErrorNotice error={moderate.error} />}
      <p role="status">{notice}</p>
      {problem && <p className="hint">{problem}</p>}
      <div className="row">
        {ACTIONS.map(([action, label]) => (
          <Button
            key={action}
            isDisabled={moderate.pending || problem !== null}
            className={action === 'suspend' ? undefined : 'secondary'}
            onPress={async () => {
              if (await moderate.run({ workflowId, action, reason })) {
                setNotice(`${label}: done.`);
                setReason('');
                onDone();
              }
            }}
          >
            {label}
          </Button>
        ))}
      </div>
    </Form>
  );
}
