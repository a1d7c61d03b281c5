import { diffLines } from 'diff';
import { useEffect, useState } from 'react';
import { Label, ListBox, ListBoxItem, Popover, Select, SelectValue, Button } from 'react-aria-components';
import { manifestAsYaml } from './manifest-text';
import { useQuery } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { formatDate } from '../format';
import { Digest } from './Digest';

// The list carries no manifests (a page of them is the most expensive answer the API gives); only
// the two versions being compared are read with theirs.
const VersionsQuery = graphql(`
  query WorkflowVersions($workflowId: String!) {
    workflowVersions(workflowId: $workflowId, limit: 100) {
      data {
        version
        name
        digest
        createdAt
      }
    }
  }
`);

const ComparedVersionsQuery = graphql(`
  query ComparedVersions($workflowId: String!, $from: String!, $to: String!) {
    from: workflowVersion(workflowId: $workflowId, version: $from) {
      manifest
      manifestSource {
        format
        text
      }
    }
    to: workflowVersion(workflowId: $workflowId, version: $to) {
      manifest
      manifestSource {
        format
        text
      }
    }
  }
`);

function VersionSelect({
  label,
  value,
  onChange,
  versions,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  versions: string[];
}) {
  return (
    <Select selectedKey={value} onSelectionChange={(k) => onChange(String(k))}>
      <Label>{label}</Label>
      <Button>
        <SelectValue /> <span aria-hidden="true">▾</span>
      </Button>
      <Popover>
        <ListBox>
          {versions.map((v) => (
            <ListBoxItem key={v} id={v}>
              {v}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

/**
 * The difference between two recorded versions of a workflow's manifest, line by line, as each was
 * written: the texts themselves when both were written in one format (YAML with its comments and
 * layout, or JSON), both as YAML when one was written as YAML and the other as JSON.
 */
export function ManifestDiff({ workflowId, from, to }: { workflowId: string; from: string; to: string }) {
  const compared = useQuery(ComparedVersionsQuery, { workflowId, from, to }, { skip: !from || !to });
  const pair = compared.data;
  const sameFormat = pair ? pair.from.manifestSource.format === pair.to.manifestSource.format : true;
  const parts =
    pair && from && to
      ? sameFormat
        ? diffLines(pair.from.manifestSource.text, pair.to.manifestSource.text)
        : diffLines(manifestAsYaml(pair.from.manifest), manifestAsYaml(pair.to.manifest))
      : [];
  return (
    <>
      {compared.error && <ErrorNotice error={compared.error} onRetry={compared.reload} />}
      {pair && !sameFormat && (
        <p className="hint">
          {from} was written as {pair.from.manifestSource.format.toUpperCase()} and {to} as {pair.to.manifestSource.format.toUpperCase()}:
          both are compared as YAML.
        </p>
      )}
      <pre className="diff" aria-label={`Changes from ${from} to ${to}`} tabIndex={0}>
        {parts.map((p, i) =>
          p.added ? <ins key={i}>{p.value}</ins> : p.removed ? <del key={i}>{p.value}</del> : <span key={i}>{p.value}</span>,
        )}
      </pre>
    </>
  );
}

/** The recorded versions, and the difference between any two of them (line by line, as written). */
export function VersionHistory({ workflowId, currentVersion }: { workflowId: string; currentVersion: string }) {
  const { data, error, reload } = useQuery(VersionsQuery, { workflowId });
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  useEffect(() => reload(), [currentVersion, reload]);
  const versions = data?.workflowVersions.data ?? [];
  useEffect(() => {
    if (versions.length === 0) return;
    setTo(versions[0]!.version);
    setFrom((versions[1] ?? versions[0]!).version);
  }, [data]);

  return (
    <section aria-labelledby="versions">
      <h2 id="versions">Version history</h2>
      {error && <ErrorNotice error={error} onRetry={reload} />}
      <ul>
        {versions.map((v) => (
          <li key={v.version}>
            {v.version} <span className="hint">{formatDate(v.createdAt)}</span> {v.name} <Digest digest={v.digest} />
          </li>
        ))}
      </ul>
      {versions.length > 1 && (
        <>
          <div className="row">
            <VersionSelect label="Compare" value={from} onChange={setFrom} versions={versions.map((v) => v.version)} />
            <VersionSelect label="with" value={to} onChange={setTo} versions={versions.map((v) => v.version)} />
          </div>
          <ManifestDiff workflowId={workflowId} from={from} to={to} />
        </>
      )}
    </section>
  );
}
