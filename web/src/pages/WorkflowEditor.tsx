import { Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Form, Input, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { request, useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { NotFound } from '../components/NotFound';
import { ConfirmButton } from '../components/ConfirmButton';
import { ReasonButton } from '../components/ReasonButton';
import { plural } from '../format';
import { lazyPage } from '../components/lazyPage';
import type { Problem } from '../editor/validate';
import { lengthProblem, TEXT_LIMITS } from '../rules';
import { VersionHistory } from '../components/VersionHistory';
import { clearDraft, loadDraft, sameFields, storeDraft, useLeaveGuard, type DraftFields } from '../editor/draft';
import { Digest } from '../components/Digest';
import { ModerationNotice } from '../components/ReportWorkflow';
import { graphql } from '../gql';
import type { Visibility } from '../gql/graphql';
import { parse as parseYaml } from 'yaml';

const WorkflowQuery = graphql(`
  query EditWorkflow($workflowId: String!) {
    workflow(workflowId: $workflowId) {
      workflowId
      name
      description
      category
      tags
      visibility
      allowForks
      currentVersion
      revision
      digest
      moderation {
        state
        reason
      }
      forkedFrom {
        workflowId
      }
      manifestSource {
        format
        text
      }
    }
  }
`);
const Create = graphql(`
  mutation CreateWorkflow(
    $name: String!
    $description: String
    $category: String
    $tags: [String!]
    $visibility: Visibility
    $manifest: JSON!
  ) {
    createWorkflow(name: $name, description: $description, category: $category, tags: $tags, visibility: $visibility, manifest: $manifest) {
      workflowId
    }
  }
`);
const Update = graphql(`
  mutation UpdateWorkflow(
    $workflowId: String!
    $name: String!
    $description: String
    $category: String
    $tags: [String!]
    $visibility: Visibility
    $manifest: JSON!
    $expectedRevision: Int
  ) {
    updateWorkflow(
      workflowId: $workflowId
      name: $name
      description: $description
      category: $category
      tags: $tags
      visibility: $visibility
      manifest: $manifest
      expectedRevision: $expectedRevision
    ) {
      workflowId
      currentVersion
      revision
    }
  }
`);
const Delete = graphql(`
  mutation DeleteWorkflow($workflowId: String!) {
    deleteWorkflow(workflowId: $workflowId) {
      deleted
    }
  }
`);

const STARTER = `manifest_version: "1.0"
name: My workflow
intent: Plan a change, write it with tests, then review it
steps:
  - id: plan
    name: Plan the change
    action: planning_agent
  - id: code
    name: Write the code
    action: code_agent
    depends_on: [plan]
  - id: review
    name: Review
    action: review_agent
    depends_on: [code]
`;

const ManifestEditor = lazyPage(() => import('../editor/ManifestEditor'));

/** The manifest's top-level `name` (YAML or JSON text), or null when the text does not parse or has none. */
function nameInManifest(text: string): string | null {
  try {
    const parsed: unknown = parseYaml(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const value = (parsed as Record<string, unknown>).name;
      if (typeof value === 'string' && value.trim()) return value.trim();
    }
  } catch {
    // Mid-edit: the text does not parse yet.
  }
  return null;
}

export default function WorkflowEditor() {
  const params = useParams<{ id?: string }>();
  const workflowId = params.id && params.id !== 'new' ? params.id : null;
  const existing = useQuery(WorkflowQuery, { workflowId: workflowId ?? '' }, { skip: !workflowId });
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [category, setCategory] = useState('');
  const [tags, setTags] = useState('');
  const [visibility, setVisibility] = useState<Visibility>('private');
  const [manifest, setManifest] = useState(STARTER);
  const [saved, setSaved] = useState<string | null>(null);
  const loadedFor = useRef<string | null>(null);
  // The revision the form shows: a save is made over it only (someone else's save since is not replaced).
  const [revision, setRevision] = useState<number | null>(null);
  const create = useMutation(Create);
  const update = useMutation(Update);
  const remove = useMutation(Delete);
  const [problems, setProblems] = useState<Problem[] | null>(null);
  // What the form held when it was loaded (or last saved): the form differs from it while there are unsaved edits.
  const [baseline, setBaseline] = useState<DraftFields | null>(null);
  const [restoredAt, setRestoredAt] = useState<string | null>(null);
  const draftKey = workflowId ?? 'new';
  const current: DraftFields = { name, description, category, tags, visibility, manifest };
  const dirty = baseline !== null && !sameFields(current, baseline);
  useLeaveGuard(dirty);

  // The Name follows the manifest's `name` while the two agree (or the Name is empty): editing the
  // manifest's name renames the form's too. Once they differ, the page says so (docs/dashboard.md).
  const manifestName = useMemo(() => nameInManifest(manifest), [manifest]);
  const followedName = useRef<string | null>(nameInManifest(STARTER));
  useEffect(() => {
    // A text that does not parse (mid-edit) or has no name yet changes nothing: the link holds.
    if (manifestName === null) return;
    const previous = followedName.current;
    followedName.current = manifestName;
    if (manifestName === previous) return;
    setName((n) => (n.trim() === '' || (previous !== null && n.trim() === previous.trim()) ? manifestName : n));
  }, [manifestName]);
  const namesDiffer = manifestName !== null && name.trim() !== '' && name.trim() !== manifestName.trim();

  function applyFields(fields: DraftFields) {
    followedName.current = nameInManifest(fields.manifest);
    setName(fields.name);
    setDescription(fields.description);
    setCategory(fields.category);
    setTags(fields.tags);
    setVisibility(fields.visibility);
    setManifest(fields.manifest);
  }

  /** Starts editing from `base`, or from the draft kept for this workflow when there is one. */
  function startFrom(base: DraftFields) {
    setBaseline(base);
    const draft = loadDraft(draftKey);
    if (draft && !sameFields(draft.fields, base)) {
      applyFields(draft.fields);
      setRestoredAt(draft.savedAt);
    } else {
      applyFields(base);
      setRestoredAt(null);
    }
  }

  useEffect(() => {
    if (workflowId) return;
    startFrom({ name: nameInManifest(STARTER) ?? '', description: '', category: '', tags: '', visibility: 'private', manifest: STARTER });
    // Once per workflow opened.
  }, [workflowId]);

  useEffect(() => {
    const w = existing.data?.workflow;
    if (!w || loadedFor.current === w.workflowId) return;
    loadedFor.current = w.workflowId;
    setRevision(w.revision);
    startFrom({
      name: w.name,
      description: w.description,
      category: w.category,
      tags: w.tags.join(', '),
      visibility: w.visibility,
      // In the format the owner wrote it in: YAML as written (comments and layout kept), JSON as JSON.
      manifest: w.manifestSource.text,
    });
    // Once per workflow loaded.
  }, [existing.data]);

  // The draft follows the form: kept while it differs from what was loaded, dropped when it no longer does.
  useEffect(() => {
    if (!baseline) return;
    if (dirty) storeDraft(draftKey, current);
    else clearDraft(draftKey);
    // `current` is made of the fields listed.
  }, [name, description, category, tags, visibility, manifest, baseline, draftKey]);

  const saveError = create.error ?? update.error;
  const changedElsewhere = update.error?.code === 'PRECONDITION_FAILED';
  const tagList = useMemo(
    () =>
      tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    [tags],
  );

  const blocked =
    lengthProblem('The name', name, TEXT_LIMITS.name, true) ??
    lengthProblem('The description', description, TEXT_LIMITS.description) ??
    lengthProblem('The category', category, TEXT_LIMITS.category) ??
    (problems === null
      ? 'The manifest is being checked.'
      : problems.length > 0
        ? `Fix the ${plural(problems.length, 'problem')} in the manifest first.`
        : null);

  if (workflowId && existing.error?.code === 'NOT_FOUND') return <NotFound what="Workflow" />;
  if (workflowId && existing.error && !existing.data) return <ErrorNotice error={existing.error} onRetry={existing.reload} />;
  if (workflowId && !existing.data) return <p aria-live="polite">Loading…</p>;
  const w = existing.data?.workflow;

  async function save() {
    setSaved(null);
    const fields = { name: name.trim(), description, category: category.trim() || undefined, tags: tagList, visibility, manifest };
    const submitted = current;
    if (workflowId) {
      const result = await update.run({ workflowId, ...fields, expectedRevision: revision });
      if (result) {
        setRevision(result.updateWorkflow.revision);
        setSaved(`Saved as version ${result.updateWorkflow.currentVersion}.`);
        setBaseline(submitted);
        setRestoredAt(null);
        existing.reload();
      }
    } else {
      const result = await create.run(fields);
      if (result) {
        setBaseline(submitted);
        clearDraft('new');
        navigate(`/workflows/${result.createWorkflow.workflowId}`);
      }
    }
  }

  return (
    <>
      <p>
        <Link href="/workflows">← Workflows</Link>
      </p>
      <h1>{w ? w.name : 'New workflow'}</h1>
      {w && (
        <p className="hint">
          Version {w.currentVersion}
          {' · '}
          <Digest digest={w.digest} />
          {w.visibility === 'public' ? (
            <>
              {' · '}
              <Link href={`/marketplace/${w.workflowId}`}>Its marketplace listing</Link>
              {' · '}
              <Link href={`/marketplace/${w.workflowId}#reviews`}>Its reviews</Link>
            </>
          ) : (
            ' · private: not in the marketplace'
          )}
        </p>
      )}
      {restoredAt && (
        <div className="notice notice-draft" role="status">
          <p>
            Your unsaved changes from {new Date(restoredAt).toLocaleString('en')} were kept in this browser and are back in the form. Save
            to keep them.
          </p>
          <button
            type="button"
            className="link-button"
            onClick={() => {
              clearDraft(draftKey);
              if (baseline) applyFields(baseline);
              setRestoredAt(null);
            }}
          >
            Discard the unsaved changes
          </button>
        </div>
      )}
      {w && <ModerationNotice moderation={w.moderation} author />}
      <Form
        className="editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="stack">
          <TextField value={name} onChange={setName} isRequired aria-describedby={namesDiffer ? 'name-vs-manifest' : undefined}>
            <Label>Name</Label>
            <Input />
          </TextField>
          {namesDiffer && (
            <p className="hint" id="name-vs-manifest">
              The manifest’s name is “{manifestName}”; the workflow will be listed as “{name.trim()}”.{' '}
              <button type="button" className="link-button" onClick={() => setName(manifestName)}>
                Use “{manifestName}”
              </button>
            </p>
          )}
          <TextField value={description} onChange={setDescription}>
            <Label>Description</Label>
            <TextArea rows={2} />
          </TextField>
          <TextField value={category} onChange={setCategory}>
            <Label>Category</Label>
            <Input />
          </TextField>
          <TextField value={tags} onChange={setTags}>
            <Label>Tags (comma-separated)</Label>
            <Input />
          </TextField>
          <RadioGroup value={visibility} onChange={(v) => setVisibility(v as Visibility)} orientation="horizontal">
            <Label>Visibility</Label>
            <Radio value="private">Private (only you)</Radio>
            <Radio value="public">Public (published in the marketplace)</Radio>
          </RadioGroup>
          {visibility === 'public' && <PublicNameHint />}
        </div>
        <div className="stack manifest-field">
          <span id="manifest-label" className="label">
            Manifest (YAML or JSON)
          </span>
          <Suspense fallback={<p aria-live="polite">Loading the editor…</p>}>
            <ManifestEditor
              value={manifest}
              onChange={setManifest}
              onProblems={setProblems}
              labelledBy="manifest-label"
              describedBy="manifest-problems"
            />
          </Suspense>
          <p className="hint">Ctrl+Space completes keys, actions and step ids. Checked as you type, by the same rules as the service.</p>
          <div id="manifest-problems" aria-live="polite">
            {problems && problems.length === 0 && <p className="ok">The manifest is valid.</p>}
            {problems && problems.length > 0 && (
              <>
                <p className="error-text">
                  {problems.length} problem{problems.length === 1 ? '' : 's'} in the manifest:
                </p>
                <ul className="problems">
                  {problems.map((p, i) => (
                    <li key={i}>
                      <code>{p.path || (p.line ? `line ${p.line}${p.column ? `, column ${p.column}` : ''}` : '(whole manifest)')}</code>{' '}
                      {p.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        </div>
        {changedElsewhere ? (
          <div className="notice notice-error" role="alert">
            <strong>Changed since you opened it</strong>
            <p>
              This workflow was changed (in another tab, by wfctl or through the API) since you opened it, so your save was not made: it
              would have replaced that change. Reload it to see the change, then apply your edits again; copy anything you want to keep
              first.
            </p>
            <button
              type="button"
              onClick={() => {
                // The form shows the version as it is now: the edits that could not be saved are not kept as a draft.
                clearDraft(draftKey);
                loadedFor.current = null;
                update.clearError();
                existing.reload();
              }}
            >
              Reload the workflow
            </button>
          </div>
        ) : (
          saveError && <ErrorNotice error={saveError} onRetry={() => void save()} />
        )}
        <p role="status">{saved}</p>
        <div className="row">
          <ReasonButton type="submit" pending={create.pending || update.pending} reason={blocked}>
            {workflowId ? 'Save' : 'Create workflow'}
          </ReasonButton>
        </div>
      </Form>
      {w && (
        <>
          <section aria-labelledby="export">
            <h2 id="export">Export</h2>
            <div className="row">
              {(
                [
                  ['json', `${w.workflowId}.json`, 'Download JSON'],
                  ['yaml', `${w.workflowId}.yaml`, 'Download YAML'],
                  ['skill', 'SKILL.md', 'Download SKILL.md'],
                ] as const
              ).map(([format, file, label]) => (
                <a
                  key={format}
                  className="button secondary"
                  href={`/v1/workflows/${w.workflowId}/manifest?format=${format}`}
                  download={file}
                  onClick={(e) => void download(e, w.workflowId, format)}
                >
                  {label}
                </a>
              ))}
            </div>
            <p className="hint">SKILL.md: the workflow as an Agent Skill, for IDEs that load skills from a folder.</p>
          </section>
          <VersionHistory workflowId={w.workflowId} currentVersion={w.currentVersion} />
          <section aria-labelledby="delete">
            <h2 id="delete">Delete</h2>
            {remove.error && <ErrorNotice error={remove.error} />}
            <ConfirmButton
              label="Delete workflow"
              title={`Delete ${w.name}?`}
              confirmLabel="Delete for good"
              pending={remove.pending}
              onConfirm={async () => {
                if (await remove.run({ workflowId: w.workflowId })) navigate('/workflows');
              }}
            >
              <p>Its versions go with it; it leaves your library and the deployments that use it.</p>
              <UsedBy workflowId={w.workflowId} />
              {w.forkedFrom && (
                <p>
                  <strong>This is a fork, and a workflow can be forked once per user:</strong> once deleted, you cannot fork the original
                  again (you can still subscribe to it).
                </p>
              )}
            </ConfirmButton>
          </section>
        </>
      )}
    </>
  );
}

const PublicNameQuery = graphql(`
  query OwnPublicName {
    me {
      displayName
    }
  }
`);

/** Before publishing: without a public name, the marketplace shows the author as a pseudonym ("user-…"). */
function PublicNameHint() {
  const { data } = useQuery(PublicNameQuery, {});
  if (!data || data.me.displayName) return null;
  return (
    <p className="hint" id="public-name-hint">
      The marketplace shows you as the author under a pseudonym (“user-…”) until you set a public name on the{' '}
      <Link href="/account">Account page</Link>.
    </p>
  );
}

const DeploymentsUsingQuery = graphql(`
  query DeploymentsUsing {
    deployments(limit: 50) {
      data {
        deploymentId
        name
        workflows {
          workflowId
        }
      }
    }
  }
`);

/** In the delete dialog: the deployments of yours that use the workflow, by name (read when the dialog opens). */
function UsedBy({ workflowId }: { workflowId: string }) {
  const { data } = useQuery(DeploymentsUsingQuery, {});
  if (!data) return null;
  const using = data.deployments.data.filter((d) => d.workflows.some((x) => x.workflowId === workflowId));
  if (using.length === 0) return <p>No deployment of yours uses it.</p>;
  return (
    <p>
      <strong>
        Used by {using.length === 1 ? 'the deployment' : `${using.length} deployments`}{' '}
        {using.map((d, i) => (
          <span key={d.deploymentId}>
            {i > 0 && (i === using.length - 1 ? ' and ' : ', ')}“{d.name}”
          </span>
        ))}
      </strong>
      : their IDEs lose it.
    </p>
  );
}

const ManifestDocumentQuery = graphql(`
  query ManifestDocument($workflowId: String!, $format: String) {
    workflowManifest(workflowId: $workflowId, format: $format) {
      body
      contentType
    }
  }
`);

/** Downloads the export through GraphQL (the session cookie does not sign REST requests in). */
async function download(event: React.MouseEvent, workflowId: string, format: 'json' | 'yaml' | 'skill') {
  event.preventDefault();
  const result = await request(ManifestDocumentQuery, { workflowId, format });
  const blob = new Blob([result.workflowManifest.body], { type: result.workflowManifest.contentType });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = format === 'skill' ? 'SKILL.md' : `${workflowId}.${format}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
