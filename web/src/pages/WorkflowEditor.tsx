import { useEffect, useMemo, useRef, useState } from 'react';
import { Button, Form, Input, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { manifestAsYaml } from '../components/manifest-text';
import { request, toApiError, useMutation, useQuery, type ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ConfirmButton } from '../components/ConfirmButton';
import { VersionHistory } from '../components/VersionHistory';
import { graphql } from '../gql';
import type { Visibility } from '../gql/graphql';

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
      manifest
    }
  }
`);
const Validate = graphql(`
  mutation ValidateManifest($manifest: JSON!) {
    validateManifest(manifest: $manifest) {
      valid
      errors {
        path
        code
        message
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
  ) {
    updateWorkflow(
      workflowId: $workflowId
      name: $name
      description: $description
      category: $category
      tags: $tags
      visibility: $visibility
      manifest: $manifest
    ) {
      workflowId
      currentVersion
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

interface Problem {
  path: string;
  message: string;
}

/** The manifest's problems as the service sees them, checked a moment after typing stops. */
function useLiveValidation(text: string): { problems: Problem[] | null; checking: boolean; failure: ApiError | null } {
  const [state, setState] = useState<{ problems: Problem[] | null; checking: boolean; failure: ApiError | null }>({
    problems: null,
    checking: false,
    failure: null,
  });
  const latest = useRef(0);
  useEffect(() => {
    const run = ++latest.current;
    setState((s) => ({ ...s, checking: true }));
    const timer = setTimeout(async () => {
      try {
        const result = await request(Validate, { manifest: text });
        if (run === latest.current) setState({ problems: result.validateManifest.errors, checking: false, failure: null });
      } catch (e) {
        const error = toApiError(e);
        if (run !== latest.current) return;
        // Text that is not YAML at all comes back as a validation error with its line.
        if (error.code === 'VALIDATION_ERROR') {
          const d = error.details as { line?: number; column?: number };
          setState({
            problems: [{ path: d.line ? `line ${d.line}${d.column ? `, column ${d.column}` : ''}` : '', message: error.message }],
            checking: false,
            failure: null,
          });
        } else {
          setState({ problems: null, checking: false, failure: error });
        }
      }
    }, 300);
    return () => clearTimeout(timer);
  }, [text]);
  return state;
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
  const create = useMutation(Create);
  const update = useMutation(Update);
  const remove = useMutation(Delete);
  const validation = useLiveValidation(manifest);

  useEffect(() => {
    const w = existing.data?.workflow;
    if (!w || loadedFor.current === w.workflowId) return;
    loadedFor.current = w.workflowId;
    setName(w.name);
    setDescription(w.description);
    setCategory(w.category);
    setTags(w.tags.join(', '));
    setVisibility(w.visibility);
    setManifest(manifestAsYaml(w.manifest));
  }, [existing.data]);

  const problems = validation.problems ?? [];
  const saveError = create.error ?? update.error;
  const tagList = useMemo(
    () =>
      tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    [tags],
  );

  if (workflowId && existing.error && !existing.data) return <ErrorNotice error={existing.error} onRetry={existing.reload} />;
  if (workflowId && !existing.data) return <p aria-live="polite">Loading…</p>;
  const w = existing.data?.workflow;

  async function save() {
    setSaved(null);
    const fields = { name: name.trim(), description, category: category.trim() || undefined, tags: tagList, visibility, manifest };
    if (workflowId) {
      const result = await update.run({ workflowId, ...fields });
      if (result) {
        setSaved(`Saved as version ${result.updateWorkflow.currentVersion}.`);
        existing.reload();
      }
    } else {
      const result = await create.run(fields);
      if (result) navigate(`/workflows/${result.createWorkflow.workflowId}`);
    }
  }

  return (
    <>
      <p>
        <Link href="/workflows">← Workflows</Link>
      </p>
      <h1>{w ? w.name : 'New workflow'}</h1>
      {w && <p className="hint">Version {w.currentVersion}</p>}
      <Form
        className="editor"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="stack">
          <TextField value={name} onChange={setName} isRequired maxLength={100}>
            <Label>Name</Label>
            <Input />
          </TextField>
          <TextField value={description} onChange={setDescription} maxLength={1000}>
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
        </div>
        <div className="stack">
          <TextField
            value={manifest}
            onChange={setManifest}
            isInvalid={problems.length > 0}
            className="react-aria-TextField manifest-field"
          >
            <Label>Manifest (YAML or JSON)</Label>
            <TextArea rows={20} spellCheck={false} className="react-aria-TextArea code" aria-describedby="manifest-problems" />
          </TextField>
          <div id="manifest-problems" aria-live="polite">
            {validation.checking && <p className="hint">Checking…</p>}
            {!validation.checking && validation.problems && problems.length === 0 && <p className="ok">The manifest is valid.</p>}
            {problems.length > 0 && (
              <>
                <p className="error-text">
                  {problems.length} problem{problems.length === 1 ? '' : 's'} in the manifest:
                </p>
                <ul className="problems">
                  {problems.map((p, i) => (
                    <li key={i}>
                      <code>{p.path || '(whole manifest)'}</code> {p.message}
                    </li>
                  ))}
                </ul>
              </>
            )}
            {validation.failure && <ErrorNotice error={validation.failure} />}
          </div>
        </div>
        {saveError && <ErrorNotice error={saveError} onRetry={() => void save()} />}
        <p role="status">{saved}</p>
        <div className="row">
          <Button type="submit" isDisabled={create.pending || update.pending || problems.length > 0 || !name.trim()}>
            {workflowId ? 'Save' : 'Create workflow'}
          </Button>
        </div>
      </Form>
      {w && (
        <>
          <section aria-labelledby="export">
            <h2 id="export">Export</h2>
            <div className="row">
              <a
                className="button secondary"
                href={`/v1/workflows/${w.workflowId}/manifest?format=json`}
                download={`${w.workflowId}.json`}
                onClick={(e) => void download(e, w.workflowId, 'json')}
              >
                Download JSON
              </a>
              <a
                className="button secondary"
                href={`/v1/workflows/${w.workflowId}/manifest?format=yaml`}
                download={`${w.workflowId}.yaml`}
                onClick={(e) => void download(e, w.workflowId, 'yaml')}
              >
                Download YAML
              </a>
              <a
                className="button secondary"
                href={`/v1/workflows/${w.workflowId}/manifest?format=skill`}
                download="SKILL.md"
                onClick={(e) => void download(e, w.workflowId, 'skill')}
              >
                Download SKILL.md
              </a>
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
            </ConfirmButton>
          </section>
        </>
      )}
    </>
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
