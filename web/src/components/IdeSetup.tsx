import { useState } from 'react';
import { Button, Tab, TabList, TabPanel, Tabs, type Key } from 'react-aria-components';
import { Link } from 'wouter';
import { useMutation } from '../api';
import { graphql } from '../gql';
import { ErrorNotice } from './ErrorNotice';
import { SETUP_IDES, setupSnippets } from './setup';
import { CopyBlock } from './CopyBlock';

// The install key of the deployment (scope mcp, limited to it), named "IDE setup: <deployment>";
// the service numbers a repeat ("… (2)"), so keys made here never share a name.
const CreateKey = graphql(`
  mutation CreateIdeKey($deploymentId: String!) {
    createDeploymentInstallKey(deploymentId: $deploymentId, madeBy: "IDE setup") {
      apiKey {
        keyId
        name
        prefix
        secret
      }
    }
  }
`);

/**
 * "Set up an IDE": for a private deployment, one press creates a personal API key (scope mcp,
 * limited to this deployment) and fills the copy-ready setup with it. The secret lives only in
 * this component's state: it is gone when the page is left, as the service never shows it again.
 */
export function IdeSetup({
  deploymentId,
  name,
  endpoint,
  anonymous,
}: {
  deploymentId: string;
  name: string;
  endpoint: string;
  anonymous: boolean;
}) {
  const [ide, setIde] = useState<Key>(SETUP_IDES[0]);
  const [key, setKey] = useState<{ name: string; secret: string } | null>(null);
  const create = useMutation(CreateKey);
  const needsKey = !anonymous && !key;
  // Named for the deployment, not the tab: the key serves every IDE (limit in code points, as the server counts).
  const keyName = Array.from(`IDE setup: ${name}`).slice(0, 100).join('').trimEnd();

  return (
    <>
      <p>
        Endpoint: <code className="endpoint">{endpoint}</code>
      </p>
      {anonymous ? (
        <p className="hint">Anyone with the URL may connect: the setup needs no key.</p>
      ) : key ? (
        <div className="notice notice-secret">
          <strong>API key “{key.name}” created</strong>
          <p>
            It opens only this deployment’s tool endpoint. It is shown only now: copy the setup (or the key) before you leave this page.
            Lost, it cannot be shown again: revoke it on the <Link href="/account">Account page</Link> and create another.
          </p>
          <CopyBlock label="API key" text={key.secret} />
        </div>
      ) : (
        <p className="hint">
          This deployment is private: an IDE connects with a personal API key. Choose your IDE below, then “Set up an IDE” creates a key
          named “{keyName}” (numbered when you made one before) that opens only this deployment, and fills the setup with it. Keys are
          listed on the <Link href="/account">Account page</Link>.
        </p>
      )}
      <Tabs selectedKey={ide} onSelectionChange={setIde}>
        <TabList aria-label="IDE">
          {SETUP_IDES.map((i) => (
            <Tab key={i} id={i}>
              {i}
            </Tab>
          ))}
        </TabList>
        {setupSnippets(name, endpoint, key?.secret ?? null).map((s) => (
          <TabPanel key={s.ide} id={s.ide}>
            {needsKey ? (
              <>
                {create.error && <ErrorNotice error={create.error} />}
                <Button
                  isDisabled={create.pending}
                  onPress={async () => {
                    const created = await create.run({ deploymentId });
                    if (created)
                      setKey({
                        name: created.createDeploymentInstallKey.apiKey.name,
                        secret: created.createDeploymentInstallKey.apiKey.secret,
                      });
                  }}
                >
                  {create.pending ? 'Creating a key…' : 'Set up an IDE'}
                </Button>
              </>
            ) : (
              <>
                <p>{s.where}</p>
                <CopyBlock label={`${s.ide} setup`} text={s.text} />
              </>
            )}
          </TabPanel>
        ))}
      </Tabs>
    </>
  );
}
