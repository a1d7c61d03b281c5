import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { PERSONAL_AUDIT_ACTIONS, PERSONAL_AUDIT_TARGETS, TEAM_AUDIT_ACTIONS, TEAM_AUDIT_TARGETS } from '../../../src/teams/audit-actions';
import { request, useQuery, type ApiError } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { ReasonButton } from './ReasonButton';
import { useViewer } from '../viewer';

const TeamLogQuery = graphql(`
  query TeamAuditLog(
    $teamId: String!
    $cursor: String
    $action: String
    $actorUserId: String
    $targetType: String
    $since: String
    $until: String
  ) {
    teamAuditLog(
      teamId: $teamId
      limit: 50
      cursor: $cursor
      action: $action
      actorUserId: $actorUserId
      targetType: $targetType
      since: $since
      until: $until
    ) {
      data {
        entryId
        action
        actorUserId
        targetType
        targetId
        details
        at
      }
      pagination {
        hasMore
        nextCursor
      }
    }
  }
`);
const MyLogQuery = graphql(`
  query MyAuditLog($cursor: String, $action: String, $targetType: String, $since: String, $until: String) {
    myAuditLog(limit: 50, cursor: $cursor, action: $action, targetType: $targetType, since: $since, until: $until) {
      data {
        entryId
        action
        actorUserId
        targetType
        targetId
        details
        at
      }
      pagination {
        hasMore
        nextCursor
      }
    }
  }
`);
const TeamCsvQuery = graphql(`
  query TeamAuditLogCsv($teamId: String!, $action: String, $actorUserId: String, $targetType: String, $since: String, $until: String) {
    teamAuditLogCsv(teamId: $teamId, action: $action, actorUserId: $actorUserId, targetType: $targetType, since: $since, until: $until) {
      contentType
      body
    }
  }
`);
const MyCsvQuery = graphql(`
  query MyAuditLogCsv($action: String, $targetType: String, $since: String, $until: String) {
    myAuditLogCsv(action: $action, targetType: $targetType, since: $since, until: $until) {
      contentType
      body
    }
  }
`);

interface Filters {
  action: string;
  actorUserId: string;
  targetType: string;
  /** Dates as the date inputs give them (YYYY-MM-DD), or empty. */
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { action: '', actorUserId: '', targetType: '', from: '', to: '' };

/** The filters as the service takes them: "to" is a whole day, so the log runs until the next midnight (UTC). */
function filterVariables(f: Filters) {
  const nextDay = f.to ? new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000).toISOString() : null;
  return {
    action: f.action || null,
    targetType: f.targetType || null,
    since: f.from ? `${f.from}T00:00:00Z` : null,
    until: nextDay,
  };
}

/** A labelled native select of `options` with "Any" first. */
function Choice(props: { id: string; label: string; value: string; onChange: (v: string) => void; options: [string, string][] }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">Any</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The filter form; its values apply when submitted. */
function FilterForm(props: { team: boolean; people: Map<string, string>; onApply: (f: Filters) => void }) {
  const [f, setF] = useState<Filters>(NO_FILTERS);
  const set = (key: keyof Filters) => (value: string) => setF((old) => ({ ...old, [key]: value }));
  const pairs = (values: readonly string[]): [string, string][] => values.map((v) => [v, v]);
  const prefix = props.team ? 'team-log' : 'my-log';
  return (
    <Form
      className="filters"
      aria-label="Filter the log"
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(f);
      }}
    >
      <Choice
        id={`${prefix}-action`}
        label="Action"
        value={f.action}
        onChange={set('action')}
        options={pairs(props.team ? TEAM_AUDIT_ACTIONS : PERSONAL_AUDIT_ACTIONS)}
      />
      {props.team && (
        <Choice id={`${prefix}-actor`} label="Who" value={f.actorUserId} onChange={set('actorUserId')} options={[...props.people]} />
      )}
      <Choice
        id={`${prefix}-target`}
        label="Target"
        value={f.targetType}
        onChange={set('targetType')}
        options={pairs(props.team ? TEAM_AUDIT_TARGETS : PERSONAL_AUDIT_TARGETS)}
      />
      <div className="field">
        <label htmlFor={`${prefix}-from`}>From</label>
        <input id={`${prefix}-from`} type="date" value={f.from} onChange={(e) => set('from')(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-to`}>To (inclusive)</label>
        <input id={`${prefix}-to`} type="date" value={f.to} onChange={(e) => set('to')(e.target.value)} />
      </div>
      <ReasonButton type="submit" reason={f.from && f.to && f.to < f.from ? '“To” is before “From”.' : null}>
        Apply filters
      </ReasonButton>
    </Form>
  );
}

/** Saves the filtered log as a CSV file, fetched through GraphQL (the session cookie does not sign REST requests in). */
async function downloadCsv(teamId: string | undefined, filters: Filters): Promise<void> {
  const variables = filterVariables(filters);
  const result = teamId
    ? (await request(TeamCsvQuery, { teamId, actorUserId: filters.actorUserId || null, ...variables })).teamAuditLogCsv
    : (await request(MyCsvQuery, variables)).myAuditLogCsv;
  const url = URL.createObjectURL(new Blob([result.body], { type: result.contentType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = teamId ? `audit-log-${teamId}.csv` : 'my-audit-log.csv';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

interface Entry {
  entryId: string;
  action: string;
  actorUserId?: string | null;
  targetType: string;
  targetId: string;
  details: unknown;
  at: string;
}

function EntryTable({ entries, people, label }: { entries: Entry[]; people: Map<string, string>; label: string }) {
  const who = (id: string | null | undefined) => (id ? (people.get(id) ?? id) : 'the service');
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={`${label} (scrolls sideways)`}>
      <table className="cards-on-phone">
        <caption className="sr-only">{label}</caption>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.entryId}>
              <th scope="row">{e.action}</th>
              <td data-label="When">
                <time dateTime={e.at}>{new Date(e.at).toLocaleString('en')}</time>
              </td>
              <td data-label="Who">{who(e.actorUserId)}</td>
              <td data-label="Target">
                {e.targetType} {e.targetType === 'user' ? who(e.targetId) : e.targetId}
              </td>
              <td data-label="Details">
                <code>{JSON.stringify(e.details)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * An audit log with its filters, page by page, newest first: the team's (`teamId`, for its owners
 * and admins) or the signed-in person's own. `people` names user ids (the team's members).
 */
export function AuditLog({ teamId, people: given }: { teamId?: string; people?: Map<string, string> }) {
  const viewer = useViewer();
  // In your own log, what you did is yours.
  const people = given ?? new Map(viewer ? [[viewer.userId, 'you']] : []);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<string[]>([]);
  const [csvError, setCsvError] = useState<ApiError | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;
  const variables = filterVariables(filters);
  const team = useQuery(
    TeamLogQuery,
    { teamId: teamId ?? '', cursor, actorUserId: filters.actorUserId || null, ...variables },
    { skip: !teamId },
  );
  const mine = useQuery(MyLogQuery, { cursor, ...variables }, { skip: !!teamId });
  const { error, reload } = teamId ? team : mine;
  const page = teamId ? team.data?.teamAuditLog : mine.data?.myAuditLog;
  const label = teamId ? "The team's audit log" : 'Your security log';
  return (
    <>
      <FilterForm
        team={!!teamId}
        people={people}
        onApply={(f) => {
          setFilters(f);
          setCursors([]);
        }}
      />
      <p>
        <a
          className="button secondary"
          href={teamId ? `/v1/teams/${teamId}/audit-log.csv` : '/v1/users/me/audit-log.csv'}
          download
          onClick={(e) => {
            e.preventDefault();
            setCsvError(null);
            downloadCsv(teamId, filters).catch((err: ApiError) => setCsvError(err));
          }}
        >
          Download CSV
        </a>
      </p>
      {csvError && <ErrorNotice error={csvError} />}
      {error && <ErrorNotice error={error} onRetry={reload} />}
      {!page && !error && <p aria-live="polite">Loading…</p>}
      {page && page.data.length === 0 && <p className="empty">No entries match.</p>}
      {page && page.data.length > 0 && <EntryTable entries={page.data} people={people} label={label} />}
      <div className="row">
        {cursors.length > 0 && <Button onPress={() => setCursors([])}>Newest entries</Button>}
        {page?.pagination.hasMore && page.pagination.nextCursor && (
          <Button onPress={() => setCursors((c) => [...c, page.pagination.nextCursor!])}>Older entries</Button>
        )}
      </div>
    </>
  );
}
