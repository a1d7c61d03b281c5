import { useState } from 'react';
import { Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { useMutation, useQuery } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { ReasonButton } from '../components/ReasonButton';
import { formatDate } from '../format';
import { graphql } from '../gql';
import { lengthProblem, TEXT_LIMITS } from '../rules';

const TeamsQuery = graphql(`
  query Teams {
    teams(limit: 100) {
      data {
        teamId
        name
        role
        createdAt
      }
    }
  }
`);
const CreateTeam = graphql(`
  mutation CreateTeam($name: String!) {
    createTeam(name: $name) {
      teamId
    }
  }
`);

/** The teams you are in, with your role in each, and a new team. */
export default function Teams() {
  const { data, error, reload } = useQuery(TeamsQuery);
  const create = useMutation(CreateTeam);
  const [name, setName] = useState('');
  const [, navigate] = useLocation();
  return (
    <>
      <h1>Teams</h1>
      <p className="lead">A team shares workflows and deployments between its members. Its owners and admins invite people.</p>
      {error && <ErrorNotice error={error} onRetry={reload} />}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {data && data.teams.data.length === 0 && <p className="empty">You are in no team yet. Create one, or accept an invitation.</p>}
      {data && data.teams.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Your teams (scrolls sideways)">
          <table className="cards-on-phone">
            <caption className="sr-only">Your teams</caption>
            <thead>
              <tr>
                <th scope="col">Team</th>
                <th scope="col">Your role</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.teams.data.map((t) => (
                <tr key={t.teamId}>
                  <th scope="row">
                    <Link href={`/teams/${t.teamId}`}>{t.name}</Link>
                  </th>
                  <td data-label="Your role">{t.role}</td>
                  <td data-label="Created">{formatDate(t.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <section aria-labelledby="new-team">
        <h2 id="new-team">New team</h2>
        <Form
          className="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            const made = await create.run({ name: name.trim() });
            if (made) navigate(`/teams/${made.createTeam.teamId}`);
          }}
        >
          <TextField value={name} onChange={setName} isRequired>
            <Label>Team name</Label>
            <Input placeholder="Platform" />
          </TextField>
          {create.error && <ErrorNotice error={create.error} />}
          <ReasonButton type="submit" pending={create.pending} reason={lengthProblem('The team name', name, TEXT_LIMITS.name, true)}>
            Create team
          </ReasonButton>
        </Form>
      </section>
    </>
  );
}
