import { useState } from 'react';
import { Button, Form, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { NotFound } from '../components/NotFound';
import { StepGraph, type GraphStep } from '../components/StepGraph';
import { CheckResult } from '../components/CheckResult';
import { ConfirmButton } from '../components/ConfirmButton';
import { ReasonButton } from '../components/ReasonButton';
import { ModerationNotice, ReportWorkflow } from '../components/ReportWorkflow';
import { formatDate, plural } from '../format';
import { characterCount, lengthProblem, REVIEW_TEXT } from '../rules';
import { useViewer } from '../viewer';
import { graphql } from '../gql';

const PageQuery = graphql(`
  query MarketplaceWorkflowPage($workflowId: String!) {
    workflow(workflowId: $workflowId) {
      workflowId
      name
      description
      category
      tags
      currentVersion
      allowForks
      viewerFork {
        forkId
      }
      manifest
      moderation {
        state
        reason
      }
      owner {
        userId
        handle
      }
      stats {
        subscribers
        forks
        rating
        ratingCount
      }
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
    }
    workflowReviews(workflowId: $workflowId, limit: 50) {
      data {
        reviewId
        rating
        text
        createdAt
        updatedAt
        author {
          userId
          handle
        }
      }
    }
    library(limit: 100) {
      data {
        workflowId
        sourceType
      }
    }
  }
`);
const Subscribe = graphql(`
  mutation Subscribe($workflowId: String!) {
    addToLibrary(workflowId: $workflowId) {
      workflowId
    }
  }
`);
const Fork = graphql(`
  mutation Fork($workflowId: String!) {
    forkWorkflow(workflowId: $workflowId) {
      workflowId
    }
  }
`);
const Review = graphql(`
  mutation WriteReview($workflowId: String!, $rating: Int!, $text: String!) {
    createReview(workflowId: $workflowId, rating: $rating, text: $text) {
      reviewId
    }
  }
`);
const EditReview = graphql(`
  mutation EditReview($workflowId: String!, $reviewId: String!, $rating: Int!, $text: String!) {
    updateReview(workflowId: $workflowId, reviewId: $reviewId, rating: $rating, text: $text) {
      reviewId
    }
  }
`);
const DeleteReview = graphql(`
  mutation DeleteReview($workflowId: String!, $reviewId: String!) {
    deleteReview(workflowId: $workflowId, reviewId: $reviewId) {
      deleted
    }
  }
`);
const Unsubscribe = graphql(`
  mutation Unsubscribe($workflowId: String!) {
    removeFromLibrary(workflowId: $workflowId) {
      workflowId
    }
  }
`);

export default function MarketplaceWorkflow() {
  const { id } = useParams<{ id: string }>();
  const viewer = useViewer();
  const { data, error, reload } = useQuery(PageQuery, { workflowId: id });
  const subscribe = useMutation(Subscribe);
  const unsubscribe = useMutation(Unsubscribe);
  const fork = useMutation(Fork);
  const [, navigate] = useLocation();
  const [notice, setNotice] = useState<string | null>(null);

  if (error?.code === 'NOT_FOUND') return <NotFound what="Workflow" />;
  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const w = data.workflow;
  const entry = data.library.data.find((e) => e.workflowId === w.workflowId);
  const manifest = (w.manifest ?? {}) as ManifestView;
  const steps = (Array.isArray(manifest.steps) ? manifest.steps : []).filter((s) => typeof s?.id === 'string');
  const own = data.workflowReviews.data.find((r) => r.author.userId === viewer?.userId) ?? null;
  const actionError = subscribe.error ?? unsubscribe.error ?? fork.error;
  const mine = w.owner?.userId === viewer?.userId;

  return (
    <>
      <p>
        <Link href="/marketplace">← Marketplace</Link>
      </p>
      <h1>{w.name}</h1>
      <p className="lead">{w.description}</p>
      <p className="hint">
        {[
          w.category,
          `version ${w.currentVersion}`,
          `by ${w.owner?.handle ?? 'you'}`,
          plural(w.stats.subscribers, 'subscriber'),
          plural(w.stats.forks, 'fork'),
          w.stats.ratingCount ? `${w.stats.rating.toFixed(1)} ★ from ${plural(w.stats.ratingCount, 'review')}` : 'no reviews yet',
        ]
          .filter(Boolean)
          .join(' · ')}
      </p>
      <CheckResult check={w.check} />
      <ModerationNotice moderation={w.moderation} />
      {actionError && <ErrorNotice error={actionError} />}
      <p role="status">{notice}</p>
      <div className="row">
        {entry ? (
          <>
            <p>In your library ({entry.sourceType}).</p>
            {entry.sourceType === 'subscribed' && (
              <ConfirmButton
                label="Unsubscribe"
                title={`Unsubscribe from ${w.name}?`}
                confirmLabel="Unsubscribe"
                pending={unsubscribe.pending}
                onConfirm={async () => {
                  if (await unsubscribe.run({ workflowId: w.workflowId })) {
                    setNotice(`Unsubscribed from “${w.name}”.`);
                    reload();
                  }
                }}
              >
                <p>It leaves your library and the deployments that use it. You can subscribe again later.</p>
              </ConfirmButton>
            )}
            {mine && <Link href={`/workflows/${w.workflowId}`}>Edit this workflow</Link>}
          </>
        ) : (
          <Button
            isDisabled={subscribe.pending}
            onPress={async () => {
              setNotice(null);
              if (await subscribe.run({ workflowId: w.workflowId })) reload();
            }}
          >
            Subscribe
          </Button>
        )}
        {w.allowForks && entry?.sourceType !== 'owned' && !w.viewerFork && (
          <Button
            className="secondary"
            isDisabled={fork.pending}
            onPress={async () => {
              const forked = await fork.run({ workflowId: w.workflowId });
              if (forked) navigate(`/workflows/${forked.forkWorkflow.workflowId}`);
            }}
          >
            Fork
          </Button>
        )}
      </div>
      {!mine && <ReportWorkflow workflowId={w.workflowId} />}
      {w.viewerFork &&
        (w.viewerFork.forkId ? (
          <p className="hint">
            You forked this workflow: <Link href={`/workflows/${w.viewerFork.forkId}`}>open your fork</Link>. A workflow can be forked once
            per user.
          </p>
        ) : (
          <p className="hint">
            You forked this workflow before and deleted the fork; a workflow can be forked once per user, so it cannot be forked again. You
            can subscribe to it.
          </p>
        ))}
      <ManifestDetails manifest={manifest} steps={steps} />
      <section aria-labelledby="reviews">
        <h2 id="reviews">Reviews</h2>
        {data.workflowReviews.data.length === 0 && <p className="empty">No reviews yet.</p>}
        <ul className="reviews">
          {data.workflowReviews.data.map((r) => (
            <li key={r.reviewId}>
              <p>
                <strong aria-label={`${r.rating} of 5 stars`}>
                  {'★'.repeat(r.rating)}
                  {'☆'.repeat(5 - r.rating)}
                </strong>{' '}
                {r.author.handle} · {formatDate(r.createdAt)}
                {r.updatedAt !== r.createdAt && ' (edited)'}
              </p>
              <p>{r.text}</p>
            </li>
          ))}
        </ul>
        {entry && entry.sourceType !== 'owned' && (
          <ReviewForm
            key={own?.reviewId ?? 'new'}
            workflowId={w.workflowId}
            own={own}
            onDone={(message) => {
              setNotice(message);
              reload();
            }}
          />
        )}
        {!entry && (
          <p className="hint">
            {w.viewerFork?.forkId === null ? 'Subscribe to review this workflow.' : 'Subscribe or fork to review this workflow.'}
          </p>
        )}
      </section>
    </>
  );
}

interface ManifestView {
  intent?: string;
  steps?: (GraphStep & { action?: string; parameters?: Record<string, unknown> })[];
  adapters?: Record<string, unknown>;
  outputs?: { type?: string; artifacts?: unknown[] };
}

/** What the workflow does, before subscribing: its intent, its steps with their actions and parameters, its adapters. */
function ManifestDetails({ manifest, steps }: { manifest: ManifestView; steps: NonNullable<ManifestView['steps']> }) {
  const actions = [...new Set(steps.map((s) => s.action).filter((a): a is string => typeof a === 'string'))];
  const adapters = manifest.adapters && typeof manifest.adapters === 'object' ? Object.keys(manifest.adapters) : [];
  return (
    <section aria-labelledby="what">
      <h2 id="what">What it does</h2>
      {manifest.intent && <p>{manifest.intent}</p>}
      <dl className="facts">
        <dt>Actions</dt>
        <dd>{actions.length ? actions.map((a) => <code key={a}>{a}</code>) : 'none'}</dd>
        <dt>Adapter settings</dt>
        <dd>{adapters.length ? adapters.map((a) => <code key={a}>{a}</code>) : 'none: every adapter uses its defaults'}</dd>
        {manifest.outputs?.type && (
          <>
            <dt>Output</dt>
            <dd>{manifest.outputs.type}</dd>
          </>
        )}
      </dl>
      <h3 id="steps">{plural(steps.length, 'step')}</h3>
      {steps.length > 0 ? <StepGraph steps={steps} /> : <p>This manifest has no steps.</p>}
      <ol className="step-list">
        {steps.map((s) => {
          const params = s.parameters && typeof s.parameters === 'object' ? Object.entries(s.parameters) : [];
          return (
            <li key={s.id}>
              <strong>{s.name ?? s.id}</strong> <code>{s.id}</code> · <code>{s.action}</code>
              {s.depends_on?.length ? <span className="hint"> · after {s.depends_on.join(', ')}</span> : null}
              {params.length > 0 && (
                <dl className="params">
                  {params.map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>
                        <code>{typeof v === 'string' ? v : JSON.stringify(v)}</code>
                      </dd>
                    </div>
                  ))}
                </dl>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

interface OwnReview {
  reviewId: string;
  rating: number;
  text: string;
}

/** Writing a review, or changing or deleting one's own. */
function ReviewForm({ workflowId, own, onDone }: { workflowId: string; own: OwnReview | null; onDone: (message: string) => void }) {
  const [editing, setEditing] = useState(!own);
  const [rating, setRating] = useState(String(own?.rating ?? 5));
  const [text, setText] = useState(own?.text ?? '');
  const write = useMutation(Review);
  const edit = useMutation(EditReview);
  const remove = useMutation(DeleteReview);
  const error = write.error ?? edit.error ?? remove.error;
  const reason =
    characterCount(text.trim()) < REVIEW_TEXT.min
      ? `A review needs at least ${REVIEW_TEXT.min} characters.`
      : lengthProblem('The review', text, REVIEW_TEXT.max);

  if (own && !editing) {
    return (
      <div className="row">
        <Button className="secondary" onPress={() => setEditing(true)}>
          Edit your review
        </Button>
        <ConfirmButton
          label="Delete your review"
          title="Delete your review?"
          confirmLabel="Delete review"
          pending={remove.pending}
          onConfirm={async () => {
            if (await remove.run({ workflowId, reviewId: own.reviewId })) onDone('Your review was deleted.');
          }}
        >
          <p>Its rating leaves the workflow’s average. You can write a new one later.</p>
        </ConfirmButton>
        {remove.error && <ErrorNotice error={remove.error} />}
      </div>
    );
  }
  return (
    <Form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        const done = own
          ? await edit.run({ workflowId, reviewId: own.reviewId, rating: Number(rating), text })
          : await write.run({ workflowId, rating: Number(rating), text });
        if (!done) return;
        setEditing(false);
        onDone(own ? 'Your review was updated.' : 'Your review was published.');
      }}
    >
      <h3>{own ? 'Edit your review' : 'Write a review'}</h3>
      <RadioGroup value={rating} onChange={setRating} orientation="horizontal">
        <Label>Rating</Label>
        {['1', '2', '3', '4', '5'].map((n) => (
          <Radio key={n} value={n}>
            {n} ★
          </Radio>
        ))}
      </RadioGroup>
      <TextField value={text} onChange={setText} isRequired>
        <Label>Your review</Label>
        <TextArea rows={3} />
      </TextField>
      {error && <ErrorNotice error={error} />}
      <div className="row">
        <ReasonButton type="submit" pending={write.pending || edit.pending} reason={reason}>
          {own ? 'Save review' : 'Publish review'}
        </ReasonButton>
        {own && (
          <Button className="secondary" onPress={() => setEditing(false)}>
            Cancel
          </Button>
        )}
      </div>
    </Form>
  );
}
