import { useState } from 'react';
import { Form, Input, Label, Radio, RadioGroup, TextField } from 'react-aria-components';
import { useMutation, useQuery } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { ConfirmButton } from './ConfirmButton';
import { CopyBlock } from './CopyBlock';
import { ReasonButton } from './ReasonButton';
import { formatDate } from '../format';
import { lengthProblem, TEXT_LIMITS } from '../rules';

const KeysQuery = graphql(`
  query ApiKeys {
    apiKeys(limit: 100) {
      data {
        keyId
        name
        scope
        deploymentIds
        prefix
        createdAt
        lastUsedAt
        expiresAt
      }
    }
    deployments(limit: 100) {
      data {
        deploymentId
        name
      }
    }
  }
`);
const CreateKey = graphql(`
  mutation CreateApiKey($name: String!, $scope: String, $expiresAt: String) {
    createApiKey(name: $name, scope: $scope, expiresAt: $expiresAt) {
      keyId
      name
      secret
    }
  }
`);
const RevokeKey = graphql(`
  mutation RevokeApiKey($keyId: String!) {
    revokeApiKey(keyId: $keyId) {
      keyId
      deleted
    }
  }
`);

/** Expiry choices, in days from now; "never" sends none. */
const EXPIRIES = [
  ['never', 'Never'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
] as const;

/** The Account page's personal API keys: the list, a new key (its secret shown once), revoke. */
export function ApiKeys({ onChange }: { onChange: () => void }) {
  const { data, error, reload } = useQuery(KeysQuery);
  const create = useMutation(CreateKey);
  const revoke = useMutation(RevokeKey);
  const [name, setName] = useState('');
  const [scope, setScope] = useState('mcp');
  const [expiry, setExpiry] = useState('never');
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoked, setRevoked] = useState('');

  const deploymentNames = new Map((data?.deployments.data ?? []).map((d) => [d.deploymentId, d.name]));
  const opens = (ids: string[]) => (ids.length === 0 ? 'all of yours' : ids.map((id) => deploymentNames.get(id) ?? id).join(', '));

  return (
    <section aria-labelledby="api-keys">
      <h2 id="api-keys">API keys</h2>
      <p className="hint">
        A key lets an IDE or a script act as you: <code>mcp</code> opens tool endpoints only, <code>api</code> also the REST and GraphQL
        API. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {error && !data && <ErrorNotice error={error} onRetry={reload} />}
      {!data && !error && <p aria-live="polite">Loading…</p>}
      {revoke.error && <ErrorNotice error={revoke.error} />}
      <p role="status" className="hint">
        {revoked}
      </p>
      {data &&
        (data.apiKeys.data.length === 0 ? (
          <p className="empty">No API keys yet.</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Your API keys (scrolls sideways)">
            <table className="cards-on-phone">
              <caption className="sr-only">Your API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Deployments</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.apiKeys.data.map((k) => {
                  // An expired key opens nothing and does not count toward the plan's key limit.
                  const expired = k.expiresAt !== null && k.expiresAt !== undefined && Date.parse(k.expiresAt) <= Date.now();
                  return (
                    <tr key={k.keyId}>
                      <th scope="row">{k.name}</th>
                      <td data-label="Scope">{k.scope}</td>
                      <td data-label="Deployments">{opens(k.deploymentIds)}</td>
                      <td data-label="Prefix">
                        <code>{k.prefix}…</code>
                      </td>
                      <td data-label="Created">{formatDate(k.createdAt)}</td>
                      <td data-label="Last used">{k.lastUsedAt ? formatDate(k.lastUsedAt) : 'never'}</td>
                      <td data-label="Expires">
                        {expired ? (
                          <>
                            <span className="badge inactive">expired</span> {formatDate(k.expiresAt!)}
                          </>
                        ) : k.expiresAt ? (
                          formatDate(k.expiresAt)
                        ) : (
                          'never'
                        )}
                      </td>
                      <td data-label="">
                        <ConfirmButton
                          label="Revoke"
                          accessibleName={`Revoke ${k.name}`}
                          title={`Revoke “${k.name}”?`}
                          confirmLabel="Revoke key"
                          pending={revoke.pending}
                          onConfirm={async () => {
                            if (await revoke.run({ keyId: k.keyId })) {
                              setRevoked(`Key “${k.name}” revoked.`);
                              reload();
                              onChange();
                            }
                          }}
                        >
                          <p>Every IDE or script using this key is refused from its next request. This cannot be undone.</p>
                        </ConfirmButton>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
      <h3>New API key</h3>
      <Form
        className="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          const expiresAt = expiry === 'never' ? null : new Date(Date.now() + Number(expiry) * 86_400_000).toISOString();
          const result = await create.run({ name: name.trim(), scope, expiresAt });
          if (result) {
            setCreated({ name: result.createApiKey.name, secret: result.createApiKey.secret });
            setName('');
            reload();
            onChange();
          }
        }}
      >
        <TextField value={name} onChange={setName} isRequired>
          <Label>Key name</Label>
          <Input placeholder="Laptop: Claude Code" />
        </TextField>
        <RadioGroup value={scope} onChange={setScope} orientation="horizontal">
          <Label>Scope</Label>
          <Radio value="mcp">mcp (tool endpoints only)</Radio>
          <Radio value="api">api (also REST and GraphQL)</Radio>
        </RadioGroup>
        <RadioGroup value={expiry} onChange={setExpiry} orientation="horizontal">
          <Label>Expires</Label>
          {EXPIRIES.map(([value, label]) => (
            <Radio key={value} value={value}>
              {label}
            </Radio>
          ))}
        </RadioGroup>
        {create.error && <ErrorNotice error={create.error} />}
        <ReasonButton type="submit" pending={create.pending} reason={lengthProblem('The key name', name, TEXT_LIMITS.name, true)}>
          Create key
        </ReasonButton>
      </Form>
      {created && (
        <div className="notice notice-secret">
          <strong>API key “{created.name}” created</strong>
          <p>It is shown only now: copy it and keep it somewhere safe. Lost, it cannot be shown again: revoke it and create another.</p>
          <CopyBlock label="API key" text={created.secret} />
        </div>
      )}
    </section>
  );
}
