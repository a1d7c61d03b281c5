import { useState } from 'react';
import { Button, Form, Input, Label, Radio, RadioGroup, TextField } from 'react-aria-components';
import { Link, useLocation, useParams } from 'wouter';
import { useMutation, useQuery } from '../api';
import { AuditLog } from '../components/AuditLog';
import { ConfirmButton } from '../components/ConfirmButton';
import { CopyBlock } from '../components/CopyBlock';
import { ErrorNotice } from '../components/ErrorNotice';
import { NotFound } from '../components/NotFound';
import { formatDate } from '../format';
import { graphql } from '../gql';
import type { TeamRole } from '../gql/graphql';
import { useViewer } from '../viewer';

const TeamQuery = graphql(`
  query TeamPage($teamId: String!) {
    team(teamId: $teamId) {
      teamId
      name
      role
      billingOwnerId
      createdAt
    }
    teamMembers(teamId: $teamId, limit: 100) {
      data {
        userId
        email
        displayName
        role
        joinedAt
      }
    }
  }
`);
const InvitationsQuery = graphql(`
  query TeamInvitations($teamId: String!) {
    teamInvitations(teamId: $teamId, limit: 100) {
      data {
        invitationId
        email
        role
        createdAt
        expiresAt
      }
    }
  }
`);
const Invite = graphql(`
  mutation InviteTeamMember($teamId: String!, $email: String!, $role: String!) {
    inviteTeamMember(teamId: $teamId, email: $email, role: $role) {
      email
      emailSent
      acceptUrl
    }
  }
`);
const Revoke = graphql(`
  mutation RevokeTeamInvitation($teamId: String!, $invitationId: String!) {
    revokeTeamInvitation(teamId: $teamId, invitationId: $invitationId) {
      deleted
    }
  }
`);
const UpdateMember = graphql(`
  mutation UpdateTeamMember($teamId: String!, $userId: String!, $role: String!) {
    updateTeamMember(teamId: $teamId, userId: $userId, role: $role) {
      role
    }
  }
`);
const RemoveMember = graphql(`
  mutation RemoveTeamMember($teamId: String!, $userId: String!) {
    removeTeamMember(teamId: $teamId, userId: $userId) {
      deleted
    }
  }
`);
const SetBillingOwner = graphql(`
  mutation SetTeamBillingOwner($teamId: String!, $userId: String!) {
    setTeamBillingOwner(teamId: $teamId, userId: $userId) {
      billingOwnerId
    }
  }
`);

interface Member {
  userId: string;
  email?: string | null;
  displayName?: string | null;
  role: TeamRole;
  joinedAt: string;
}

const ROLE_WORDS: Record<TeamRole, string> = { owner: 'an owner', admin: 'an admin', member: 'a member' };

const nameOf = (m: Member) => m.displayName || m.email || m.userId;

/** The roles `me` may give: owners give any, admins admin or member (docs/teams.md, "Roles"). */
const rolesFor = (me: TeamRole): TeamRole[] => (me === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member']);

function MemberRow(props: { teamId: string; member: Member; myRole: TeamRole; me: string; onChange: (left: boolean) => void }) {
  const { teamId, member: m, myRole } = props;
  const update = useMutation(UpdateMember);
  const remove = useMutation(RemoveMember);
  const self = m.userId === props.me;
  // Owners manage everyone; admins manage admins and members, never an owner.
  const manages = myRole === 'owner' || (myRole === 'admin' && m.role !== 'owner');
  const selectId = `role-${m.userId}`;
  return (
    <tr>
      <th scope="row">
        {nameOf(m)}
        {self && ' (you)'}
        {m.email && m.displayName && <div className="hint">{m.email}</div>}
      </th>
      <td data-label="Role">
        {manages ? (
          <>
            <label htmlFor={selectId} className="sr-only">
              Role of {nameOf(m)}
            </label>
            <select
              id={selectId}
              value={m.role}
              disabled={update.pending}
              onChange={async (e) => {
                if (await update.run({ teamId, userId: m.userId, role: e.target.value })) props.onChange(false);
              }}
            >
              {rolesFor(myRole).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </>
        ) : (
          m.role
        )}
        {update.error && <ErrorNotice error={update.error} />}
      </td>
      <td data-label="Joined">{formatDate(m.joinedAt)}</td>
      <td data-label="">
        {(self || manages) && (
          <ConfirmButton
            label={self ? 'Leave' : 'Remove'}
            accessibleName={self ? 'Leave the team' : `Remove ${nameOf(m)}`}
            title={self ? 'Leave the team?' : `Remove ${nameOf(m)} from the team?`}
            confirmLabel={self ? 'Leave the team' : 'Remove'}
            pending={remove.pending}
            onConfirm={async () => {
              if (await remove.run({ teamId, userId: m.userId })) props.onChange(self);
            }}
          >
            <p>
              {self
                ? 'You lose access to the team’s workflows and deployments.'
                : 'They lose access to the team’s workflows and deployments.'}
            </p>
          </ConfirmButton>
        )}
        {remove.error && <ErrorNotice error={remove.error} />}
      </td>
    </tr>
  );
}

function Members(props: { teamId: string; members: Member[]; myRole: TeamRole; onChange: (left: boolean) => void }) {
  const me = useViewer()?.userId ?? '';
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Members (scrolls sideways)">
        <table className="cards-on-phone">
          <caption className="sr-only">Members</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.members.map((m) => (
              <MemberRow key={m.userId} teamId={props.teamId} member={m} myRole={props.myRole} me={me} onChange={props.onChange} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function InviteForm({ teamId, onInvited }: { teamId: string; onInvited: () => void }) {
  const invite = useMutation(Invite);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [sent, setSent] = useState<{ email: string; acceptUrl: string | null } | null>(null);
  return (
    <>
      <h3>Invite someone</h3>
      <Form
        className="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          const made = await invite.run({ teamId, email: email.trim(), role });
          if (made) {
            setSent({ email: made.inviteTeamMember.email, acceptUrl: made.inviteTeamMember.acceptUrl ?? null });
            setEmail('');
            onInvited();
          }
        }}
      >
        <TextField value={email} onChange={setEmail} type="email" isRequired>
          <Label>E-mail address</Label>
          <Input autoComplete="off" />
        </TextField>
        <RadioGroup value={role} onChange={setRole} orientation="horizontal">
          <Label>Role</Label>
          <Radio value="member">member</Radio>
          <Radio value="admin">admin</Radio>
        </RadioGroup>
        {invite.error && <ErrorNotice error={invite.error} />}
        <Button type="submit" isDisabled={invite.pending}>
          Send invitation
        </Button>
      </Form>
      {sent && (
        <div className="notice" role="status">
          <strong>Invitation for {sent.email} made</strong>
          {sent.acceptUrl ? (
            <>
              <p>This service sends no e-mail: pass this link on yourself. It works once, for 7 days.</p>
              <CopyBlock label="invitation link" text={sent.acceptUrl} />
            </>
          ) : (
            <p>An e-mail with the link to join was sent. It works once, for 7 days.</p>
          )}
        </div>
      )}
    </>
  );
}

function Invitations({ teamId }: { teamId: string }) {
  const { data, error, reload } = useQuery(InvitationsQuery, { teamId });
  const revoke = useMutation(Revoke);
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Invitations</h2>
      {error && <ErrorNotice error={error} onRetry={reload} />}
      {revoke.error && <ErrorNotice error={revoke.error} />}
      {data && data.teamInvitations.data.length === 0 && <p className="empty">No pending invitations.</p>}
      {data && data.teamInvitations.data.length > 0 && (
        <ul className="plain-list">
          {data.teamInvitations.data.map((i) => (
            <li key={i.invitationId}>
              <span>
                {i.email} as {i.role}, until {formatDate(i.expiresAt)}
              </span>{' '}
              <ConfirmButton
                label="Revoke"
                accessibleName={`Revoke the invitation of ${i.email}`}
                title={`Revoke the invitation of ${i.email}?`}
                confirmLabel="Revoke invitation"
                pending={revoke.pending}
                onConfirm={async () => {
                  if (await revoke.run({ teamId, invitationId: i.invitationId })) reload();
                }}
              >
                <p>Its link stops working.</p>
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
      <InviteForm teamId={teamId} onInvited={reload} />
    </section>
  );
}

function Billing(props: { teamId: string; billingOwnerId: string; members: Member[]; myRole: TeamRole; onChange: () => void }) {
  const set = useMutation(SetBillingOwner);
  const owners = props.members.filter((m) => m.role === 'owner' && m.userId !== props.billingOwnerId);
  const [choice, setChoice] = useState('');
  const current = props.members.find((m) => m.userId === props.billingOwnerId);
  return (
    <section aria-labelledby="billing">
      <h2 id="billing">Billing</h2>
      <p>The team’s seats are paid by the subscription of {current ? nameOf(current) : props.billingOwnerId}.</p>
      {props.myRole === 'owner' &&
        (owners.length === 0 ? (
          <p className="hint">To hand billing to someone else, make them an owner first.</p>
        ) : (
          <Form
            className="row"
            onSubmit={async (e) => {
              e.preventDefault();
              if (choice && (await set.run({ teamId: props.teamId, userId: choice }))) props.onChange();
            }}
          >
            <label htmlFor="billing-owner">Hand billing to</label>
            <select id="billing-owner" value={choice} onChange={(e) => setChoice(e.target.value)} required>
              <option value="">Choose an owner</option>
              {owners.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {nameOf(m)}
                </option>
              ))}
            </select>
            <Button type="submit" isDisabled={!choice || set.pending}>
              Hand over billing
            </Button>
          </Form>
        ))}
      {set.error && <ErrorNotice error={set.error} />}
    </section>
  );
}

/** A team: its members and their roles, invitations, billing, and its audit log (owners and admins). */
export default function Team() {
  const { id } = useParams<{ id: string }>();
  const { data, error, reload } = useQuery(TeamQuery, { teamId: id });
  const [, navigate] = useLocation();
  if (error?.code === 'NOT_FOUND') return <NotFound />;
  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const team = data.team;
  const members = data.teamMembers.data;
  const manages = team.role !== 'member';
  const people = new Map(members.map((m) => [m.userId, nameOf(m)] as [string, string]));
  return (
    <>
      <p>
        <Link href="/teams">← Teams</Link>
      </p>
      <h1>{team.name}</h1>
      <p className="lead">
        You are {ROLE_WORDS[team.role]} · created {formatDate(team.createdAt)}
      </p>
      <Members teamId={id} members={members} myRole={team.role} onChange={(left) => (left ? navigate('/teams') : reload())} />
      {manages && <Invitations teamId={id} />}
      <Billing teamId={id} billingOwnerId={team.billingOwnerId} members={members} myRole={team.role} onChange={reload} />
      {manages && (
        <section aria-labelledby="audit-log">
          <h2 id="audit-log">Audit log</h2>
          <AuditLog teamId={id} people={people} />
        </section>
      )}
    </>
  );
}
