import { useState } from 'react';
import { Button, Form, Label, TextArea, TextField } from 'react-aria-components';
import { useMutation } from '../api';
import { graphql } from '../gql';
import { characterCount, lengthProblem, REPORT_REASON_MAX } from '../rules';
import { ErrorNotice } from './ErrorNotice';
import { ReasonButton } from './ReasonButton';

const Report = graphql(`
  mutation ReportWorkflow($workflowId: String!, $reason: String!) {
    reportWorkflow(workflowId: $workflowId, reason: $reason) {
      reportId
    }
  }
`);

/** Reporting a workflow to the operators: a reason, sent once (one open report per user and workflow). */
export function ReportWorkflow({ workflowId }: { workflowId: string }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState(false);
  const report = useMutation(Report);
  if (sent) return <p role="status">Thank you: the operators will look at your report.</p>;
  if (!open) {
    return (
      <p>
        <Button className="link-button" onPress={() => setOpen(true)}>
          Report this workflow
        </Button>
      </p>
    );
  }
  const problem = characterCount(reason.trim()) === 0 ? 'Say what is wrong.' : lengthProblem('The reason', reason, REPORT_REASON_MAX);
  return (
    <Form
      className="stack"
      aria-label="Report this workflow"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await report.run({ workflowId, reason })) setSent(true);
      }}
    >
      <TextField value={reason} onChange={setReason} isRequired>
        <Label>What is wrong with this workflow?</Label>
        <TextArea rows={3} />
      </TextField>
      {report.error && <ErrorNotice error={report.error} />}
      <div className="row">
        <ReasonButton type="submit" pending={report.pending} reason={problem}>
          Send report
        </ReasonButton>
        <Button className="secondary" onPress={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}

/** What the operators decided about a workflow, for its readers and (`author`) its author; nothing while listed. */
export function ModerationNotice({
  moderation,
  author = false,
}: {
  moderation: { state: string; reason?: string | null } | null | undefined;
  author?: boolean;
}) {
  if (!moderation || moderation.state === 'listed') return null;
  const what =
    moderation.state === 'suspended'
      ? 'Suspended by the operators: no deployment serves it, and it cannot be subscribed to or forked.'
      : 'Unlisted by the operators: it is out of the marketplace’s lists and search, and takes no new subscribers; existing subscribers keep it.';
  return (
    <div className="notice notice-error" role="note">
      <strong>{what}</strong>
      <p>Reason: {moderation.reason ?? 'none given'}</p>
      {author && <p>Change what the reason names, then write to the operators to be reinstated.</p>}
    </div>
  );
}
