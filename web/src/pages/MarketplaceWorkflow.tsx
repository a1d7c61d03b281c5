import { useState } from 'react';
import { Button, Form, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { StepGraph, type GraphStep } from '../components/StepGraph';
import { formatDate } from '../format';
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
      manifest
      stats {
        subscribers
        forks
        rating
        ratingCount
      }
    }
    workflowReviews(workflowId: $workflowId, limit: 50) {
      data {
        reviewId
        rating
        text
        createdAt
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

export default function MarketplaceWorkflow() {
  const { id } = useParams<{ id: string }>();
  const viewer = useViewer();
  const { data, error, reload } = useQuery(PageQuery, { workflowId: id });
  const subscribe = useMutation(Subscribe);
  const fork = useMutation(Fork);
  const review = useMutation(Review);
  const [, navigate] = useLocation();
  const [rating, setRating] = useState('5');
  const [text, setText] = useState('');

  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const w = data.workflow;
  const entry = data.library.data.find((e) => e.workflowId === w.workflowId);
  const steps = ((w.manifest as { steps?: GraphStep[] }).steps ?? []).filter((s) => typeof s?.id === 'string');
  const reviewed = data.workflowReviews.data.some((r) => r.author.userId === viewer?.userId);
  const actionError = subscribe.error ?? fork.error;

  return (
    <>
      <p>
        <Link href="/marketplace">← Marketplace</Link>
      </p>
      <h1>{w.name}</h1>
      <p className="lead">{w.description}</p>
      <p className="hint">
        {w.category} · version {w.currentVersion} · {w.stats.subscribers} subscribers · {w.stats.forks} forks ·{' '}
        {w.stats.ratingCount ? `${w.stats.rating.toFixed(1)} ★ from ${w.stats.ratingCount} reviews` : 'no reviews yet'}
      </p>
      {actionError && <ErrorNotice error={actionError} />}
      <div className="row">
        {entry ? (
          <p role="status">In your library ({entry.sourceType}).</p>
        ) : (
          <Button
            isDisabled={subscribe.pending}
            onPress={async () => {
              if (await subscribe.run({ workflowId: w.workflowId })) reload();
            }}
          >
            Subscribe
          </Button>
        )}
        {w.allowForks && entry?.sourceType !== 'owned' && (
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
      <section aria-labelledby="steps">
        <h2 id="steps">Steps</h2>
        <div className="graph-wrap" tabIndex={0} role="region" aria-label="Dependency graph (scrolls sideways)">
          {steps.length > 0 ? <StepGraph steps={steps} /> : <p>This manifest has no steps.</p>}
        </div>
      </section>
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
              </p>
              <p>{r.text}</p>
            </li>
          ))}
        </ul>
        {entry && entry.sourceType !== 'owned' && !reviewed && (
          <Form
            className="stack"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await review.run({ workflowId: w.workflowId, rating: Number(rating), text })) {
                setText('');
                reload();
              }
            }}
          >
            <h3>Write a review</h3>
            <RadioGroup value={rating} onChange={setRating} orientation="horizontal">
              <Label>Rating</Label>
              {['1', '2', '3', '4', '5'].map((n) => (
                <Radio key={n} value={n}>
                  {n} ★
                </Radio>
              ))}
            </RadioGroup>
            <TextField value={text} onChange={setText} isRequired maxLength={2000}>
              <Label>Your review</Label>
              <TextArea rows={3} />
            </TextField>
            {review.error && <ErrorNotice error={review.error} />}
            <Button type="submit" isDisabled={review.pending || !text.trim()}>
              Publish review
            </Button>
          </Form>
        )}
        {!entry && <p className="hint">Subscribe or fork to review this workflow.</p>}
      </section>
    </>
  );
}
