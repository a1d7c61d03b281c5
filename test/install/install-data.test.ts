import { describe, expect } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { seedEndpointOwner } from '../helpers/mcp.js';
import { serviceTestWith } from '../helpers/service-test.js';
import { INSTALL_CLIENTS, installFormsOf, type InstallForm } from '../../src/install/clients/index.js';

/**
 * A deployment's install data on REST and GraphQL: the same data on both faces, every client's
 * deeplink decoded into the shape its documentation gives (docs/install.md), OAuth first, a key
 * only where a client needs a header, and what fits a private or an anonymous deployment.
 */

const INSTALL_FIELDS = `deploymentId name serverName endpoint allowAnonymous apiKeyIncluded keyBoundEndpoint
  claudeMarketplaceUrl claudePlugin skillsSource skillsIndexUrl
  target { deploymentId name description allowAnonymous endpoint baseUrl }
  clients { client title note forms { auth kind label url webUrl commands steps file { path content } usesApiKey } }
  workflows { workflowId name version digest authorHandle authorDisplayName thirdParty }`;

type Client = { client: string; title: string; note: string | null; forms: InstallForm[] };
type Install = {
  endpoint: string;
  keyBoundEndpoint: string | null;
  clients: Client[];
  workflows: Record<string, unknown>[];
  [k: string]: unknown;
};

function clientOf(install: Install, id: string): Client {
  const found = install.clients.find((c) => c.client === id);
  expect(found, id).toBeDefined();
  return found!;
}

function base64Json(value: string): any {
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
}

const base = 'http://localhost:4000/v1';

/** The endpoint owner's deployments "Code Review" (private, both workflows) and "Open Tools" (anonymous), and another user. */
interface World {
  token: string;
  otherToken: string;
  privateId: string;
  anonymousId: string;
  owned: string;
  subscribed: string;
}

const test = serviceTestWith({ PUBLIC_BASE_URL: base }).extend<{
  world: World;
  restInstall: (id: string, as?: string) => Promise<Install>;
}>({
  world: [
    async ({ service: t }, use) => {
      const owner = await seedEndpointOwner(t);
      const { token, owned, subscribed } = owner;
      const otherToken = await t.token('someone-else@example.com');
      const privateId = await owner.deploy({ name: 'Code Review', workflowIds: [owner.owned, owner.subscribed] });
      const anonymousId = await owner.deploy({ name: 'Open Tools', workflowIds: [owner.owned], allowAnonymous: true });
      await use({ token, otherToken, privateId, anonymousId, owned, subscribed });
    },
    { scope: 'file' },
  ],
  /** A deployment's install data on REST, read by its owner unless told otherwise. */
  restInstall: [
    async ({ service: t, world: { token } }, use) =>
      use(async (id, as = token) => {
        const res = await t.call('GET', `/v1/deployments/${id}/install`, { token: as });
        expect(res.status, res.text).toBe(200);
        expect(res.body.success).toBe(true);
        return res.body.data;
      }),
    { scope: 'file' },
  ],
});

describe('install data', () => {
  test('REST, Query.deploymentInstall and Deployment.install give the same data', async ({
    service: t,
    restInstall,
    world: { token, privateId },
  }) => {
    const rest = await restInstall(privateId);
    const gql = await t.graphql(
      `query($id: String!) { deploymentInstall(deploymentId: $id) { ${INSTALL_FIELDS} } deployment(deploymentId: $id) { install { ${INSTALL_FIELDS} } } }`,
      { id: privateId },
      token,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.deploymentInstall).toEqual(rest);
    expect(gql.body.data.deployment.install).toEqual(rest);
    expect(rest).toMatchObject({
      deploymentId: privateId,
      name: 'Code Review',
      serverName: 'code-review',
      endpoint: `${base}/mcp/${privateId}`,
      allowAnonymous: false,
      apiKeyIncluded: false,
      keyBoundEndpoint: `${base}/install/${privateId}/<API_KEY>/mcp`,
      // What the forms are made from: the command line makes its entries from it, with its own key.
      target: {
        deploymentId: privateId,
        name: 'Code Review',
        description: null,
        allowAnonymous: false,
        endpoint: `${base}/mcp/${privateId}`,
        baseUrl: base,
      },
    });
    expect(rest.clients.map((c) => c.client)).toEqual(INSTALL_CLIENTS);
    expect(INSTALL_CLIENTS).toHaveLength(11);
  });

  test('names each workflow the install brings, at the version served, with its author and content digest', async ({
    service: t,
    restInstall,
    world: { token, privateId, owned, subscribed },
  }) => {
    const rest = await restInstall(privateId);
    const digestOf = async (id: string, version: string) =>
      (await t.call('GET', `/v1/workflows/${id}/versions/${version}`, { token })).body.data.digest as string;
    expect(rest.workflows).toEqual([
      {
        workflowId: owned,
        name: 'Feature pipeline',
        version: '1.0.0',
        digest: await digestOf(owned, '1.0.0'),
        authorHandle: expect.stringMatching(/^user-[0-9a-z]{8}$/),
        authorDisplayName: null,
        thirdParty: false,
      },
      {
        workflowId: subscribed,
        name: 'Bug triage',
        version: '3.1.0',
        digest: await digestOf(subscribed, '3.1.0'),
        authorHandle: expect.stringMatching(/^user-[0-9a-z]{8}$/),
        authorDisplayName: null,
        thirdParty: true,
      },
    ]);
    expect(rest.workflows[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rest.workflows[0]!.authorHandle).not.toBe(rest.workflows[1]!.authorHandle);
  });

  test('says where a route cannot work: the plugin on an http or loopback address, the skills CLI on Node 20', async ({
    restInstall,
    world: { privateId },
  }) => {
    const rest = await restInstall(privateId);
    const note = (client: string) => rest.clients.find((c) => c.client === client)!.note ?? '';
    // The test service is reached at http://127.0.0.1: Claude Code would refuse the plugin's archive.
    expect(note('claude-code')).toContain('needs the service at a public https:// address');
    expect(note('claude-code')).toContain('PUBLIC_BASE_URL');
    expect(note('skills')).toContain('Node.js 22 or later');
    // At a public https address the plugin route works, and nothing is said.
    const target = {
      deploymentId: 'dep_x',
      name: 'X',
      description: null,
      allowAnonymous: true,
      endpoint: 'https://workflows.example.com/v1/mcp/dep_x',
      baseUrl: 'https://workflows.example.com/v1',
    };
    expect(installFormsOf(target).find((c) => c.client === 'claude-code')!.note).toBeNull();
    for (const base of ['https://localhost:4000/v1', 'https://127.0.0.1/v1', 'http://workflows.example.com/v1'])
      expect(installFormsOf({ ...target, baseUrl: base }).find((c) => c.client === 'claude-code')!.note).toContain('https://');
  });

  test("another user's deployment, an unknown one and no token are refused on both faces", async ({
    service: t,
    world: { otherToken, privateId },
  }) => {
    for (const id of [privateId, 'dep_unknown']) {
      const res = await t.call('GET', `/v1/deployments/${id}/install`, { token: otherToken });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      const gql = await t.graphql(`query($id: String!) { deploymentInstall(deploymentId: $id) { deploymentId } }`, { id }, otherToken);
      expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
      const key = await t.call('POST', `/v1/deployments/${id}/install/key`, { token: otherToken });
      expect(key.status).toBe(404);
    }
    const anonymous = await t.call('GET', `/v1/deployments/${privateId}/install`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });

  test('a private deployment offers OAuth first in every client, and a key only where a header is needed', async ({
    restInstall,
    world: { privateId },
  }) => {
    const install = await restInstall(privateId);
    for (const client of install.clients) {
      if (client.client === 'skills') continue; // fetched by URL: the key is in the address
      expect(client.forms[0]!.auth, client.client).toBe('oauth');
      expect(client.forms[0]!.usesApiKey, client.client).toBe(false);
    }
    // Goose and the Claude connectors take no header at all: OAuth only.
    expect(clientOf(install, 'goose').forms.every((f) => f.auth === 'oauth')).toBe(true);
    expect(clientOf(install, 'claude-desktop').forms.every((f) => f.auth === 'oauth')).toBe(true);
    const claude = clientOf(install, 'claude-code').forms[0]!;
    expect(claude.commands).toEqual([
      `claude mcp add --transport http code-review ${base}/mcp/${privateId}`,
      'claude mcp login code-review',
    ]);
  });

  test('an anonymous deployment needs no sign-in and no key anywhere', async ({ restInstall, world: { anonymousId } }) => {
    const install = await restInstall(anonymousId);
    expect(install.keyBoundEndpoint).toBeNull();
    for (const client of install.clients) {
      for (const form of client.forms) {
        expect(form.auth, `${client.client}: ${form.label}`).toBe('none');
        expect(JSON.stringify(form)).not.toContain('<API_KEY>');
        expect(JSON.stringify(form)).not.toContain('login');
      }
    }
    expect(install.claudeMarketplaceUrl).toBe(`${base}/install/${anonymousId}/marketplace.json`);
    expect(install.skillsSource).toBe(`${base}/install/${anonymousId}`);
  });

  test('decodes every deeplink into the shape the client documents, with the made key', async ({
    service: t,
    world: { token, privateId },
  }) => {
    const made = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token });
    expect(made.status, made.text).toBe(201);
    const key: string = made.body.data.apiKey.secret;
    expect(key).toMatch(/^wfk_[0-9A-Za-z]{40}$/);
    expect(made.body.data.apiKey).toMatchObject({ name: 'Install page: Code Review', scope: 'mcp', deploymentIds: [privateId] });
    // Keys made again never share a name: numbered; and each is named for where it was made.
    const again = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token });
    expect(again.body.data.apiKey.name).toBe('Install page: Code Review (2)');
    const ide = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token, body: { madeBy: 'IDE setup' } });
    expect(ide.body.data.apiKey.name).toBe('IDE setup: Code Review');
    const wfctl = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token, body: { madeBy: ' wfctl on  build-7 ' } });
    expect(wfctl.body.data.apiKey.name).toBe('wfctl on build-7: Code Review');
    for (const extra of [again, ide, wfctl]) await t.call('DELETE', `/v1/api-keys/${extra.body.data.apiKey.keyId}`, { token });
    const install: Install = made.body.data.install;
    expect(install.apiKeyIncluded).toBe(true);
    expect(JSON.stringify(install)).not.toContain('<API_KEY>');
    const endpoint = `${base}/mcp/${privateId}`;
    const keyBound = `${base}/install/${privateId}/${key}/mcp`;
    expect(install.keyBoundEndpoint).toBe(keyBound);

    // Cursor: cursor://anysphere.cursor-deeplink/mcp/install?name=&config=<base64 of the entry without its name>.
    const [cursorOAuth, cursorKey] = clientOf(install, 'cursor').forms;
    for (const f of [cursorOAuth!, cursorKey!]) {
      const link = new URL(f.url!);
      expect(`${link.protocol}//${link.host}${link.pathname}`).toBe('cursor://anysphere.cursor-deeplink/mcp/install');
      expect(link.searchParams.get('name')).toBe('code-review');
    }
    const web = new URL(cursorOAuth!.webUrl!);
    expect(`${web.origin}${web.pathname}`).toBe('https://cursor.com/en/install-mcp');
    expect(web.search).toBe(new URL(cursorOAuth!.url!).search);
    // The key-bound URL is never handed to cursor.com: its form has no web page.
    expect(cursorKey!.webUrl).toBeNull();
    expect(base64Json(new URL(cursorOAuth!.url!).searchParams.get('config')!)).toEqual({ url: endpoint });
    // Cursor drops a header once OAuth is offered: its key form is the key-bound URL, with no header.
    expect(base64Json(new URL(cursorKey!.url!).searchParams.get('config')!)).toEqual({ url: keyBound });

    // VS Code: vscode:mcp/install?<URI-encoded {name, type: "http", url, headers}>, the key through inputs.
    for (const [id, scheme, cli] of [
      ['vscode', 'vscode:', 'code'],
      ['vscode-insiders', 'vscode-insiders:', 'code-insiders'],
    ] as const) {
      const [oauth, withKey] = clientOf(install, id).forms;
      const prefix = `${scheme}mcp/install?`;
      expect(oauth!.url!.startsWith(prefix)).toBe(true);
      expect(JSON.parse(decodeURIComponent(oauth!.url!.slice(prefix.length)))).toEqual({
        name: 'code-review',
        type: 'http',
        url: endpoint,
      });
      const keyed = JSON.parse(decodeURIComponent(withKey!.url!.slice(prefix.length)));
      expect(keyed).toEqual({
        name: 'code-review',
        type: 'http',
        url: endpoint,
        headers: { Authorization: 'Bearer ${input:workflows-api-key}' },
        inputs: [{ type: 'promptString', id: 'workflows-api-key', description: expect.any(String), password: true }],
      });
      // The key itself is never in a VS Code link: VS Code asks for it.
      expect(withKey!.url).not.toContain(key);
      expect(new URL(withKey!.webUrl!).searchParams.get('url')).toBe(withKey!.url);
      expect(withKey!.commands[0]).toBe(`${cli} --add-mcp '${JSON.stringify(keyed)}'`);
    }

    // LM Studio: lmstudio://add_mcp?name=&config=<base64 of Cursor's entry shape>.
    const [lmOAuth, lmKey] = clientOf(install, 'lm-studio').forms;
    const lm = new URL(lmKey!.url!);
    expect(lm.protocol).toBe('lmstudio:');
    expect(lmKey!.url!.startsWith('lmstudio://add_mcp?')).toBe(true);
    expect(lm.searchParams.get('name')).toBe('code-review');
    expect(base64Json(lm.searchParams.get('config')!)).toEqual({ url: endpoint, headers: { Authorization: `Bearer ${key}` } });
    expect(base64Json(new URL(lmOAuth!.url!).searchParams.get('config')!)).toEqual({ url: endpoint });

    // Goose: goose://extension?url=&type=streamable_http&id=&name=&description=, no header.
    const goose = new URL(clientOf(install, 'goose').forms[0]!.url!);
    expect(clientOf(install, 'goose').forms[0]!.url!.startsWith('goose://extension?')).toBe(true);
    expect(Object.fromEntries(goose.searchParams)).toEqual({
      url: endpoint,
      type: 'streamable_http',
      id: 'code-review',
      name: 'Code Review',
      description: expect.any(String),
    });

    // Claude Code: the header form, add-json, and the key-bound URL for releases that drop the header.
    const claude = clientOf(install, 'claude-code').forms;
    expect(claude[1]!.commands).toEqual([
      `claude mcp add --transport http code-review ${endpoint} --header 'Authorization: Bearer ${key}'`,
    ]);
    const addJson = /^claude mcp add-json code-review '(.*)'$/.exec(claude[2]!.commands[0]!);
    expect(JSON.parse(addJson![1]!)).toEqual({ type: 'http', url: endpoint, headers: { Authorization: `Bearer ${key}` } });
    expect(claude[3]!.commands).toEqual([`claude mcp add --transport http code-review ${keyBound}`]);
    expect(claude[4]!.commands).toEqual([
      `claude plugin marketplace add ${base}/install/${privateId}/${key}/marketplace.json`,
      `claude plugin install ${install.claudePlugin}`,
    ]);

    // Gemini CLI: -H for the header; settings.json uses httpUrl (url would mean SSE).
    const gemini = clientOf(install, 'gemini-cli').forms;
    expect(gemini[1]!.commands).toEqual([`gemini mcp add -t http -H 'Authorization: Bearer ${key}' code-review ${endpoint}`]);
    expect(JSON.parse(gemini[2]!.file!.content)).toEqual({
      mcpServers: { 'code-review': { httpUrl: endpoint, headers: { Authorization: `Bearer ${key}` } } },
    });

    // Codex: no header flag; the key comes from an environment variable, and config.toml says which.
    const codex = clientOf(install, 'codex').forms;
    expect(codex[1]!.commands).toEqual([
      `export CODE_REVIEW_API_KEY=${key}`,
      `codex mcp add code-review --url ${endpoint} --bearer-token-env-var CODE_REVIEW_API_KEY`,
    ]);
    expect(parseToml(codex[2]!.file!.content)).toEqual({
      mcp_servers: { 'code-review': { url: endpoint, bearer_token_env_var: 'CODE_REVIEW_API_KEY' } },
    });

    // Windsurf: mcp_config.json with serverUrl and headers.
    const windsurf = clientOf(install, 'windsurf').forms;
    expect(windsurf[1]!.file!.path).toBe('~/.codeium/windsurf/mcp_config.json');
    expect(JSON.parse(windsurf[1]!.file!.content)).toEqual({
      mcpServers: { 'code-review': { serverUrl: endpoint, headers: { Authorization: `Bearer ${key}` } } },
    });
    expect(JSON.parse(windsurf[0]!.file!.content)).toEqual({ mcpServers: { 'code-review': { serverUrl: endpoint } } });

    // The skills CLI takes the deployment's install base (with the key for a private one).
    expect(clientOf(install, 'skills').forms[0]!.commands).toEqual([`npx skills add ${base}/install/${privateId}/${key}`]);
  });

  test("no form's web page (another site) receives the key or the key-bound URL, in any encoding", async ({
    service: t,
    world: { token, privateId },
  }) => {
    const made = await t.call('POST', `/v1/deployments/${privateId}/install/key`, { token });
    const key: string = made.body.data.apiKey.secret;
    const install: Install = made.body.data.install;
    /** Every text the link carries: itself, its query values URI-decoded, and those that are base64 decoded. */
    function readings(link: string): string[] {
      const out = [link, decodeURIComponent(link)];
      for (const value of new URL(link).searchParams.values()) {
        out.push(value, decodeURIComponent(value), Buffer.from(value, 'base64').toString('utf8'));
        if (/^[a-z-]+:/.test(value)) for (const inner of new URL(value).searchParams.values()) out.push(inner);
      }
      return out;
    }
    let webLinks = 0;
    for (const client of install.clients) {
      for (const f of client.forms) {
        if (!f.webUrl) continue;
        webLinks += 1;
        expect(new URL(f.webUrl).protocol).toBe('https:');
        for (const text of readings(f.webUrl)) {
          expect(text, `${client.client}: ${f.label}`).not.toContain(key);
          expect(text, `${client.client}: ${f.label}`).not.toContain(`/install/${privateId}/`);
        }
      }
    }
    // The OAuth forms of Cursor and both VS Codes keep their web pages.
    expect(webLinks).toBeGreaterThanOrEqual(3);
    expect(clientOf(install, 'cursor').forms.find((f) => f.usesApiKey)!.webUrl).toBeNull();
  });

  test('GraphQL makes the key the same way, and the key opens the tool endpoint of that deployment only', async ({
    service: t,
    world: { token, privateId },
  }) => {
    const res = await t.graphql(
      `mutation($id: String!) { createDeploymentInstallKey(deploymentId: $id) { apiKey { secret scope deploymentIds } install { apiKeyIncluded keyBoundEndpoint } } }`,
      { id: privateId },
      token,
    );
    expect(res.body.errors).toBeUndefined();
    const { apiKey, install } = res.body.data.createDeploymentInstallKey;
    expect(apiKey.scope).toBe('mcp');
    expect(apiKey.deploymentIds).toEqual([privateId]);
    expect(install.keyBoundEndpoint).toBe(`${base}/install/${privateId}/${apiKey.secret}/mcp`);
    // Scope mcp: not a key for REST.
    const rest = await t.call('GET', '/v1/users/me', { token: apiKey.secret });
    expect(rest.status).toBe(403);
  });
});
