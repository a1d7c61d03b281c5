import { useState } from 'react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { Link, useParams } from 'wouter';
import { useMutation, useQuery } from '../api';
import { CopyBlock } from '../components/CopyBlock';
import { ErrorNotice } from '../components/ErrorNotice';
import { graphql } from '../gql';
import type { InstallFieldsFragment } from '../gql/graphql';

/**
 * A deployment's install page: every agent client's one-step form (a deeplink button with its web
 * fallback, commands to copy, or numbered steps with a file), OAuth first. A key for this
 * deployment is made here, on request, and filled into every form that needs one (docs/install.md).
 * "Your client" picks one client to show first (the others folded below it), remembered in this
 * browser; without a choice, every client is listed after jump links to each.
 */

/** Where the browser remembers the client chosen (the same on every deployment's install page). */
const CLIENT_STORAGE_KEY = 'install-client';
const ALL = 'all';

function rememberedClient(): string | null {
  try {
    return window.localStorage.getItem(CLIENT_STORAGE_KEY);
  } catch {
    return null;
  }
}

function rememberClient(client: string | null): void {
  try {
    if (client) window.localStorage.setItem(CLIENT_STORAGE_KEY, client);
    else window.localStorage.removeItem(CLIENT_STORAGE_KEY);
  } catch {
    // Storage refused (a privacy setting): the choice holds for this visit only.
  }
}

// The install data as the page shows it: read by the query, and again with the key filled in by the mutation.
graphql(`
  fragment InstallFields on DeploymentInstall {
    deploymentId
    name
    endpoint
    allowAnonymous
    apiKeyIncluded
    keyBoundEndpoint
    clients {
      client
      title
      note
      forms {
        auth
        kind
        label
        url
        webUrl
        commands
        steps
        file {
          path
          content
        }
        usesApiKey
      }
    }
  }
`);

const InstallQuery = graphql(`
  query DeploymentInstall($deploymentId: String!) {
    deploymentInstall(deploymentId: $deploymentId) {
      ...InstallFields
    }
  }
`);

const MakeKey = graphql(`
  mutation CreateDeploymentInstallKey($deploymentId: String!) {
    createDeploymentInstallKey(deploymentId: $deploymentId) {
      apiKey {
        keyId
        name
        prefix
        secret
      }
      install {
        ...InstallFields
      }
    }
  }
`);

type Install = InstallFieldsFragment;
type Form = Install['clients'][number]['forms'][number];

const AUTH_LABEL: Record<string, string> = { oauth: 'Sign in (OAuth)', api_key: 'API key', none: 'No sign-in' };

function FormView({ form, clientId, index, keyReady }: { form: Form; clientId: string; index: number; keyReady: boolean }) {
  const needsKey = form.usesApiKey && !keyReady;
  const id = `${clientId}-${index}`;
  return (
    <div className="install-form">
      <p id={`${id}-label`}>
        <span className={`badge badge-${form.auth}`}>{AUTH_LABEL[form.auth] ?? form.auth}</span> {form.label}
      </p>
      {needsKey ? (
        <p className="hint">Make a key above to fill it in here.</p>
      ) : (
        <>
          {form.url && (
            <p className="install-links">
              <a className="button" href={form.url}>
                Open in the app
              </a>
              {form.webUrl && (
                <a href={form.webUrl} target="_blank" rel="noreferrer">
                  Open the web page instead
                </a>
              )}
            </p>
          )}
          {form.steps.length > 0 && (
            <ol>
              {form.steps.map((s) => (
                <li key={s}>{s}</li>
              ))}
            </ol>
          )}
          {form.commands.length > 0 && <CopyBlock label={`command (${form.label})`} text={form.commands.join('\n')} />}
          {form.file && <CopyBlock label={`${form.file.path} content`} text={form.file.content} />}
        </>
      )}
    </div>
  );
}

export default function DeploymentInstall() {
  const { id } = useParams<{ id: string }>();
  const { data, error, reload } = useQuery(InstallQuery, { deploymentId: id });
  const makeKey = useMutation(MakeKey);
  const [made, setMade] = useState<{ install: Install; secret: string; name: string } | null>(null);
  const [chosen, setChosen] = useState<string | null>(rememberedClient);

  if (error && !data) return <ErrorNotice error={error} onRetry={reload} />;
  if (!data) return <p aria-live="polite">Loading…</p>;
  const install = made?.install ?? data.deploymentInstall;
  const needsKeyAnywhere = install.clients.some((c) => c.forms.some((f) => f.usesApiKey));
  const picked = install.clients.find((c) => c.client === chosen) ?? null;
  const others = install.clients.filter((c) => c !== picked);
  const clientSection = (client: Install['clients'][number]) => (
    <section key={client.client} aria-labelledby={`client-${client.client}`} className="install-client">
      <h2 id={`client-${client.client}`}>{client.title}</h2>
      {client.note && <p className="hint">{client.note}</p>}
      {client.forms.map((form, index) => (
        <FormView key={`${form.label}-${index}`} form={form} clientId={client.client} index={index} keyReady={install.apiKeyIncluded} />
      ))}
    </section>
  );

  return (
    // Long URLs and commands break anywhere rather than widen a phone's screen.
    <div style={{ overflowWrap: 'anywhere' }}>
      <p>
        <Link href={`/deployments/${install.deploymentId}`}>← {install.name}</Link>
      </p>
      <h1>Install {install.name}</h1>
      <p className="lead">
        {install.allowAnonymous
          ? 'This deployment allows anonymous use: every client connects without signing in.'
          : 'Each client signs in with your account (OAuth) first; an API key is offered where a client needs a header.'}
      </p>
      <CopyBlock label="endpoint URL" text={install.endpoint} />
      <div className="install-picker">
        <Select
          selectedKey={picked?.client ?? ALL}
          onSelectionChange={(key) => {
            const next = key === ALL ? null : String(key);
            setChosen(next);
            rememberClient(next);
          }}
        >
          <Label>Your client</Label>
          <Button>
            <SelectValue /> <span aria-hidden="true">▾</span>
          </Button>
          <Popover>
            <ListBox>
              <ListBoxItem id={ALL}>Every client</ListBoxItem>
              {install.clients.map((c) => (
                <ListBoxItem key={c.client} id={c.client}>
                  {c.title}
                </ListBoxItem>
              ))}
            </ListBox>
          </Popover>
        </Select>
        <p className="hint">
          {picked
            ? `${picked.title} is shown first; the other clients are folded below. This browser remembers the choice.`
            : 'Choose yours to see it first (this browser remembers it), or jump to it below.'}
        </p>
      </div>
      {!picked && (
        <nav aria-label="Clients" className="install-jump">
          <ul>
            {install.clients.map((c) => (
              <li key={c.client}>
                <a href={`#client-${c.client}`}>{c.title}</a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {needsKeyAnywhere && (
        <section aria-labelledby="key">
          <h2 id="key">API key for this deployment</h2>
          {made ? (
            <>
              <p role="status">
                Made the key “{made.name}”. It is shown once and is filled into the forms below; it opens this deployment&apos;s tool
                endpoint only. Revoke it under <Link href="/account">Account</Link>.
              </p>
              <CopyBlock label="API key" text={made.secret} />
            </>
          ) : (
            <>
              <p>Some clients below need a key. Make one for this deployment only (you can revoke it any time under Account).</p>
              <Button
                isDisabled={makeKey.pending}
                onPress={async () => {
                  const result = await makeKey.run({ deploymentId: install.deploymentId });
                  if (result) {
                    const { apiKey, install: filled } = result.createDeploymentInstallKey;
                    setMade({ install: filled, secret: apiKey.secret, name: apiKey.name });
                  }
                }}
              >
                Make an API key for {install.name}
              </Button>
              {makeKey.error && <ErrorNotice error={makeKey.error} />}
            </>
          )}
        </section>
      )}
      {picked ? (
        <>
          {clientSection(picked)}
          <details className="install-others">
            <summary>Other clients ({others.length})</summary>
            {others.map(clientSection)}
          </details>
        </>
      ) : (
        install.clients.map(clientSection)
      )}
    </div>
  );
}
