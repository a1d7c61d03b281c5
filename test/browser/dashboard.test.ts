import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { MemoryOAuthProvider, REDIRECT_URI } from '../helpers/oauth.js';
import { freePort, startProcess, stopProcess } from '../helpers/process.js';
import { checkPage, DESKTOP, fileBrowserStack, PHONE, signIn, startService, type RunningProcess, type SignedIn } from './service.js';

/**
 * The dashboard end to end in Debian's Chromium, against the built service started as a user starts
 * it (`node dist/src/main.js`), on PGlite, or on PostgreSQL when DATABASE_URL is set.
 */

const INVALID_MANIFEST = `# Runs every night; kept as written, with the flow lists below
manifest_version: "1.0"
name: Nightly dependency upgrade
intent: Upgrade dependencies, run the tests, open a pull request
steps:
  - id: upgrade
    name: Upgrade the dependencies
    action: code_agent
  - id: test
    name: Run the tests
    action: test_agent
    depends_on: [upgrad]
  - id: review
    name: Review the upgrade
    action: review_agent
    depends_on: [test, review]
`;

const FIXED_MANIFEST = INVALID_MANIFEST.replace('[upgrad]', '[upgrade]').replace('[test, review]', '[test]');

const stack = fileBrowserStack({ timeoutMs: 300_000 });

const newUser = (email: string, origin = stack.service.origin) => signIn(stack.chromium.browser, origin, email, { clipboard: true });

describe('the dashboard in a browser', { timeout: 120_000 }, () => {
  let alice: SignedIn;
  let workflowUrl = '';

  it('signs in with the development sign-in page (checked for accessibility at both widths)', async () => {
    const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${stack.service.origin}/sign-in?return=%2Fdeployments`);
    await checkPage(page, 'sign-in', 'sign-in page');
    const wrong = page.getByLabel('E-mail address');
    await wrong.fill('not an address');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await context.close();

    alice = await newUser('alice@example.com');
    await alice.page.getByText('alice@example.com').waitFor();
    // The cookie is out of reach of page scripts.
    expect(await alice.page.evaluate(() => document.cookie)).toBe('');
    const cookies = await alice.context.cookies();
    expect(cookies.find((c) => c.name === 'wf_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await checkPage(alice.page, 'deployments-empty', 'deployments page without deployments');
  });

  it('creates a workflow: an invalid manifest shows each error at its path; fixed, it saves and is published', async () => {
    const page = alice.page;
    await page.getByRole('link', { name: 'Workflows' }).first().click();
    await page.getByRole('heading', { name: 'Workflows', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Nightly dependency upgrade');
    await page.getByLabel('Description').fill('Upgrades dependencies every night and reviews the result');
    await page.getByLabel('Category').fill('maintenance');
    const editor = page.getByLabel('Manifest (YAML or JSON)');
    await editor.fill(INVALID_MANIFEST);
    const problems = page.locator('#manifest-problems');
    await problems.getByText('2 problems in the manifest:').waitFor();
    expect(await problems.innerText()).toContain('/steps/1/depends_on/0');
    expect(await problems.innerText()).toContain('/steps/2/depends_on/1');
    expect(await page.getByRole('button', { name: 'Create workflow' }).isDisabled()).toBe(true);
    // The button says why, and each problem is marked in the text where it is.
    await page.getByText('Fix the 2 problems in the manifest first.').waitFor();
    const marks = page.locator('.cm-lintRange-error');
    await marks.first().waitFor();
    expect(await marks.allInnerTexts()).toEqual(['upgrad', 'review']);
    await checkPage(page, 'workflow-editor-errors', 'workflow editor with errors');

    await editor.fill(FIXED_MANIFEST);
    await problems.getByText('The manifest is valid.').waitFor();
    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    workflowUrl = page.url();
    await page.getByText('Version 1.0.0').waitFor();

    await page.getByText('Public (published in the marketplace)').click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved as version 1.0.0.').waitFor();
    await checkPage(page, 'workflow-edit', 'workflow page');

    // The SKILL.md export is the very text the REST API serves (read here with an API key of Alice's).
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download SKILL.md' }).click();
    const downloaded = await downloading;
    expect(downloaded.suggestedFilename()).toBe('SKILL.md');
    const exported = readFileSync((await downloaded.path())!, 'utf8');
    const apiKey = await page.evaluate(async () => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { createApiKey(name: "export check", scope: "api") { secret } }' }),
      });
      return ((await res.json()) as { data: { createApiKey: { secret: string } } }).data.createApiKey.secret;
    });
    const workflowId = /\/workflows\/(wf_\w+)/.exec(workflowUrl)![1]!;
    const rest = await fetch(`${stack.service.origin}/v1/workflows/${workflowId}/manifest?format=skill`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('content-type')).toMatch(/^text\/markdown/);
    const skill = await rest.text();
    expect(skill).toMatch(/^---\nname: /);
    expect(skill).toContain('Upgrade the dependencies');
    expect(exported).toBe(skill);

    await page.getByRole('link', { name: '← Workflows' }).click();
    const row = page.getByRole('row', { name: /Nightly dependency upgrade/ });
    await row.waitFor();
    expect(await row.innerText()).toContain('public');
    await checkPage(page, 'workflows', 'workflow list');
  });

  it('records a new version when the manifest changes (after a dropped connection, retried without losing the text) and shows the difference', async () => {
    const page = alice.page;
    await page.goto(workflowUrl);
    // The editor shows the YAML as it was written: the comment and the flow lists are still there.
    await page.getByLabel('Manifest (YAML or JSON)').getByText('# Runs every night').waitFor();
    expect((await page.getByLabel('Manifest (YAML or JSON)').innerText()).trimEnd()).toBe(FIXED_MANIFEST.trimEnd());
    await page
      .getByLabel('Manifest (YAML or JSON)')
      .fill(FIXED_MANIFEST.replace('name: Review the upgrade', 'name: Review the upgrade carefully'));
    await page.locator('#manifest-problems').getByText('The manifest is valid.').waitFor();
    // The connection drops while saving: the page says so, keeps the text and saves on retry.
    await alice.context.setOffline(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('No connection to the service').waitFor();
    expect(await page.getByLabel('Manifest (YAML or JSON)').innerText()).toContain('Review the upgrade carefully');
    await alice.context.setOffline(false);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText(/Saved as version 1\.\d+\.\d+\./).waitFor();
    const diff = page.getByLabel(/Changes from 1\.0\.0 to/);
    await diff.waitFor();
    expect(await diff.locator('ins').innerText()).toContain('Review the upgrade carefully');
    expect(await diff.locator('del').innerText()).toContain('Review the upgrade');
  });

  it('lets a second user find it by search, subscribe, review, build a deployment and connect an MCP client with the copied Claude Code setup', async () => {
    const bob = await newUser('bob@example.com');
    const page = bob.page;
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('heading', { name: 'Marketplace', level: 1 }).waitFor();
    await checkPage(page, 'marketplace', 'marketplace');
    await page.getByLabel('Search public workflows').pressSequentially('nightly', { delay: 40 });
    await page.getByRole('heading', { name: 'Results for “nightly”' }).waitFor();
    await page.getByRole('list', { name: 'Search results' }).getByRole('link', { name: 'Nightly dependency upgrade' }).click();
    await page.getByRole('heading', { name: 'Nightly dependency upgrade', level: 1 }).waitFor();
    await page.getByRole('img', { name: 'Steps and their dependencies' }).waitFor();

    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.getByText('In your library (subscribed).').waitFor();
    await page.getByText('4 ★').click();
    await page.getByLabel('Your review').fill('Saves me an hour every morning.');
    await page.getByRole('button', { name: 'Publish review' }).click();
    await page.getByText('Saves me an hour every morning.').waitFor();
    await checkPage(page, 'marketplace-workflow', 'marketplace workflow page');

    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor();
    await page.getByText('subscribed · version').waitFor();
    await checkPage(page, 'library', 'library');

    await page.getByRole('link', { name: 'Deployments' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Morning upkeep');
    await page.locator('label.react-aria-Checkbox', { hasText: 'Nightly dependency upgrade' }).click();
    // Private (the default): an IDE needs a key.
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.waitForURL(/\/deployments\/dep_/);
    await page.getByRole('heading', { name: 'Morning upkeep', level: 1 }).waitFor();

    // One press creates a key for this deployment and fills the setup with it.
    await page.getByRole('button', { name: 'Set up an IDE' }).click();
    await page.getByText('API key “IDE setup: Morning upkeep” created').waitFor();
    await page.getByText(/It is shown only now/).waitFor();
    await checkPage(page, 'deployment-ide-setup', 'deployment page with a key just created');
    await page.getByRole('button', { name: 'Copy Claude Code setup' }).click();
    await page.getByText('Copied.').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const setup =
      /^claude mcp add --transport http morning-upkeep (http:\/\/127\.0\.0\.1:\d+\/v1\/mcp\/dep_\w+) --header "(Authorization): (Bearer (wfk_[A-Za-z0-9]{40}))"$/.exec(
        copied,
      );
    expect(setup, copied).not.toBeNull();
    const [, endpoint, headerName, headerValue, key] = setup as unknown as [string, string, string, string, string];
    // The key is a key of its own, never the browser's session.
    const session = (await bob.context.cookies()).find((c) => c.name === 'wf_session')!;
    expect(session.value.length).toBeGreaterThan(10);
    expect(copied).not.toContain(session.value);
    expect(await page.content()).not.toContain(session.value);
    // Without the header the endpoint refuses: what opens it is the copied key.
    expect(
      (
        await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{}',
        })
      ).status,
    ).toBe(401);

    // An MCP client connects with exactly what was copied: the endpoint and the header of the command.
    const client = new Client({ name: 'claude-code', version: '2.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { [headerName]: headerValue } } }));
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    await client.close();

    // Shown only then: after a reload the page no longer holds the secret.
    await page.reload();
    await page.getByText(/^[1-9]\d* connections? of/).waitFor();
    expect(await page.content()).not.toContain(key);
    await checkPage(page, 'deployment', 'deployment page');

    // An IDE connects with OAuth instead, given only the endpoint: registered, sent to the browser where Bob is signed in, allowed.
    const oauth = new MemoryOAuthProvider({ client_name: 'Zed' });
    await expect(
      new Client({ name: 'zed', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: oauth })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // The IDE's loopback redirect URI is answered here, so the browser hands over the code without a listener.
    let redirected: URL | null = null;
    await bob.context.route(`${new URL(REDIRECT_URI).origin}/**`, async (route) => {
      redirected = new URL(route.request().url());
      await route.fulfill({ contentType: 'text/plain', body: 'You can return to your IDE.' });
    });
    await page.goto(oauth.authorizationUrl!.href);
    await page.getByRole('heading', { name: 'Connect an application?' }).waitFor();
    await page.locator('q', { hasText: 'Zed' }).waitFor();
    await checkPage(page, 'oauth-consent', 'consent page of an application');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('You can return to your IDE.').waitFor();
    const code = (redirected as URL | null)?.searchParams.get('code');
    expect(code).toBeTruthy();
    const finishing = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: oauth });
    await finishing.finishAuth(code!);
    const accessToken = oauth.saved!.access_token;
    const ide = new Client({ name: 'zed', version: '1.0.0' });
    await ide.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: oauth }));
    expect((await ide.listTools()).tools.length).toBeGreaterThan(0);
    await ide.close();
    const toolCall = (token: string) =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'zed', version: '1.0.0' } },
        }),
      });
    expect((await toolCall(accessToken)).status).toBe(200);

    // Another application, in a browser not signed in yet: the sign-in page says which application
    // asks (its own name, shown as text), and the consent page after it offers Allow as the primary
    // choice with Deny beside it, distinct at both widths.
    const oddName = 'Cline <b>&</b> "co"';
    const other = new MemoryOAuthProvider({ client_name: oddName });
    await expect(
      new Client({ name: 'cline', version: '1.0.0' }).connect(
        new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: other }),
      ),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const fresh = await stack.chromium.browser.newContext({ viewport: DESKTOP });
    let denied: URL | null = null;
    await fresh.route(`${new URL(REDIRECT_URI).origin}/**`, async (route) => {
      denied = new URL(route.request().url());
      await route.fulfill({ contentType: 'text/plain', body: 'Connection refused by the user.' });
    });
    const signInPage = await fresh.newPage();
    await signInPage.goto(other.authorizationUrl!.href);
    await signInPage.waitForURL(/\/sign-in\?return=%2Foauth%2Finteraction%2F/);
    const asking = signInPage.locator('p.asking');
    expect(await asking.locator('q').innerText()).toBe(oddName);
    expect(await asking.locator('b').count()).toBe(0);
    expect(await asking.innerText()).toContain('returns to localhost:53682');
    await checkPage(signInPage, 'sign-in-authorization', 'sign-in page of an authorization');
    // A sign-in that is not part of an authorization names no application.
    const plain = await fresh.newPage();
    await plain.goto(`${stack.service.origin}/sign-in?return=%2Faccount`);
    await plain.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await plain.locator('p.asking').count()).toBe(0);
    await plain.close();
    await signInPage.getByLabel('E-mail address').fill('bob@example.com');
    await signInPage.getByRole('button', { name: 'Sign in' }).click();
    await signInPage.getByRole('heading', { name: 'Connect an application?' }).waitFor();
    expect(await signInPage.locator('p.client q').innerText()).toBe(oddName);
    const allow = signInPage.getByRole('button', { name: 'Allow' });
    const deny = signInPage.getByRole('button', { name: 'Deny' });
    const look = (button: typeof allow) =>
      button.evaluate((el) => {
        const style = getComputedStyle(el);
        return `${style.backgroundColor} ${style.color}`;
      });
    for (const viewport of [DESKTOP, PHONE]) {
      await signInPage.setViewportSize(viewport);
      const [a, d] = [(await allow.boundingBox())!, (await deny.boundingBox())!];
      // Side by side, Allow first, each a full-size target.
      expect(Math.abs(a.y - d.y), `Allow and Deny on one row at ${viewport.width} px`).toBeLessThanOrEqual(1);
      expect(a.x + a.width).toBeLessThanOrEqual(d.x);
      expect(Math.min(a.height, d.height)).toBeGreaterThanOrEqual(40);
      expect(d.x + d.width).toBeLessThanOrEqual(viewport.width);
      // Allow is the filled primary button, Deny the outlined secondary one.
      expect(await look(allow)).not.toBe(await look(deny));
      expect(await deny.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
    }
    await signInPage.setViewportSize(DESKTOP);
    await deny.click();
    await signInPage.getByText('Connection refused by the user.').waitFor();
    expect((denied as URL | null)?.searchParams.get('error')).toBe('access_denied');
    await fresh.close();
    await page.goBack();
    await page.goBack();
    await page.getByRole('heading', { name: 'Morning upkeep', level: 1 }).waitFor();

    // The Account page lists the key (for this deployment, by its prefix), creates another and revokes the first.
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { name: /^Plan:/ }).waitFor();
    const keyRow = page.getByRole('row', { name: /IDE setup: Morning upkeep/ });
    await keyRow.waitFor();
    const cells = keyRow.getByRole('cell');
    expect(await cells.nth(0).innerText()).toBe('mcp');
    expect(await cells.nth(1).innerText()).toBe('Morning upkeep');
    expect(await cells.nth(2).innerText()).toBe(`${key.slice(0, 12)}…`);
    expect(await page.content()).not.toContain(key);
    await page.getByLabel('Key name').fill('Nightly script');
    await page.getByText('api (also REST and GraphQL)').click();
    await page.getByText('90 days').click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('API key “Nightly script” created').waitFor();
    const scriptRow = page.getByRole('row', { name: /Nightly script/ });
    await scriptRow.waitFor();
    expect(await scriptRow.innerText()).toMatch(/api\s+all of yours/);
    const appRow = page.getByRole('row', { name: /Zed/ });
    await appRow.waitFor();
    expect(await appRow.getByRole('cell').nth(0).innerText()).toBe('Morning upkeep');
    expect(await appRow.getByRole('cell').nth(1).innerText()).toMatch(/\d{4}$/);
    await checkPage(page, 'account', 'account page');

    await keyRow.getByRole('button', { name: 'Revoke IDE setup: Morning upkeep' }).click();
    const revokeDialog = page.getByRole('alertdialog');
    await revokeDialog.getByText('Every IDE or script using this key is refused').waitFor();
    await revokeDialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key “IDE setup: Morning upkeep” revoked.').waitFor();
    await keyRow.waitFor({ state: 'detached' });
    // The revoked key no longer opens the endpoint.
    const refused = new Client({ name: 'claude-code', version: '2.0.0' });
    await expect(
      refused.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { [headerName]: headerValue } } })),
    ).rejects.toThrow(/401|invalid_token|Unauthorized/i);

    // Disconnecting the IDE by keyboard, behind a confirmation: its token is refused from the next request.
    await appRow.getByRole('button', { name: 'Disconnect Zed' }).focus();
    await page.keyboard.press('Enter');
    const disconnectDialog = page.getByRole('alertdialog');
    await disconnectDialog.getByText('Its tokens stop working at once').waitFor();
    await checkPage(page, 'account-disconnect', 'disconnect confirmation');
    // Cancel has the focus; the next stop is Disconnect.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Disconnect');
    await page.keyboard.press('Enter');
    await page.getByText('“Zed” disconnected.').waitFor();
    await appRow.waitFor({ state: 'detached' });
    await page.getByText('No connected applications.').waitFor();
    const afterDisconnect = await toolCall(accessToken);
    expect(afterDisconnect.status).toBe(401);
    expect(afterDisconnect.headers.get('www-authenticate')).toMatch(/invalid_token/);

    // The free plan holds 5 keys: with 4 more made through the API, one more on the page is refused in words, with the way to upgrade.
    for (let i = 1; i <= 4; i++) {
      const made = await page.evaluate(async (n) => {
        const res = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `mutation { createApiKey(name: "extra ${n}") { keyId } }` }),
        });
        return res.json();
      }, i);
      expect(made.data?.createApiKey.keyId, JSON.stringify(made)).toMatch(/^key_/);
    }
    await page.getByLabel('Key name').fill('One too many');
    await page.getByRole('button', { name: 'Create key' }).click();
    const capRefusal = page.getByRole('alert').filter({ hasText: 'Your plan’s limit is reached' });
    await capRefusal.waitFor();
    expect(await capRefusal.getByRole('link', { name: 'See plans and upgrade' }).getAttribute('href')).toBe('/account');
    expect(await page.getByLabel('Key name').inputValue()).toBe('One too many');

    await page.getByRole('link', { name: 'Deployments' }).first().click();
    await page.getByRole('link', { name: 'Morning upkeep' }).waitFor();
    await checkPage(page, 'deployments', 'deployments page');

    // A second deployment is over the free plan's quota: the page says so before any form, with
    // what to do (this service has no billing, so no upgrade is offered).
    const atLimit = page.getByRole('status').filter({ hasText: 'Your plan’s limit of deployments is reached' });
    await atLimit.waitFor();
    expect(await atLimit.innerText()).toContain('The free plan allows 1 deployment and 1 is used: delete a deployment first');
    expect(await page.getByRole('button', { name: 'Create deployment' }).count()).toBe(0);

    // Deleting the account, by keyboard alone: the dialog lists what goes and wants the words typed.
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('button', { name: 'Delete account' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    const listed = await dialog.innerText();
    expect(listed).toContain('0 workflows');
    expect(listed).toContain('1 deployment (their endpoints stop answering)');
    expect(listed).toContain('1 subscription in your library');
    expect(listed).toContain('5 API keys (IDEs using them are cut off)');
    expect(await dialog.getByRole('button', { name: 'Delete my account' }).isDisabled()).toBe(true);
    await page.keyboard.type('delete my account');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('You are signed out.').waitFor();
    await bob.context.close();
  });

  it('refuses a cross-site GraphQL POST that the browser sends with the session cookie', async () => {
    // Another origin on the same machine: the same site, so SameSite=Lax still sends the cookie.
    const port = await freePort();
    const target = `${stack.service.origin}/graphql`;
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>elsewhere</title><script>
        fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ query: 'mutation { createDeployment(name: "cross-site", workflowIds: []) { deploymentId } }' }) })
          .then(() => document.title = 'sent', () => document.title = 'sent');
      </script>`);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const page = await alice.context.newPage();
      const sent = page.waitForRequest((r) => r.url() === target);
      await page.goto(`http://127.0.0.1:${port}/`);
      await sent;
      await page.waitForFunction(() => document.title === 'sent');
      await page.close();
      // The service's access log: refused with 403 (a request without the cookie would have been a 401).
      const refusals = stack.service
        .output()
        .split('\n')
        .filter((line) => line.includes('"route":"POST /graphql"') && line.includes('"status":403'));
      expect(refusals.length).toBe(1);
    } finally {
      server.close();
    }
    const own = await alice.page.evaluate(async () => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ deployments { data { name } } }' }),
      });
      return res.json();
    });
    expect(own.data.deployments.data.map((d: { name: string }) => d.name)).not.toContain('cross-site');
  });

  it('signs out, and the pages then send the browser to sign in again', async () => {
    const page = alice.page;
    await page.goto(`${stack.service.origin}/workflows`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.goto(`${stack.service.origin}/account`);
    await page.waitForURL(/\/sign-in\?return=%2Faccount/);
    await alice.context.close();
  });
});

describe('sign-in at a real OpenID provider', { timeout: 120_000 }, () => {
  it('signs in through the provider (authorization code + PKCE) and lands on the page asked for', async () => {
    const providerPort = await freePort();
    const servicePort = await freePort();
    const clientSecret = `secret-${Math.random().toString(36).slice(2)}${Date.now()}`;
    const issuer = `http://127.0.0.1:${providerPort}`;
    const provider = await startProcess(
      [
        'test/browser/oidc-provider.mjs',
        String(providerPort),
        'dashboard',
        clientSecret,
        `http://127.0.0.1:${servicePort}/sign-in/callback`,
      ],
      {},
      /oidc provider ready/,
    );
    let oidcService: RunningProcess | null = null;
    const oidcDatabase = process.env.DATABASE_URL ? await createTestDatabase({ poolSize: 1 }) : null;
    try {
      await oidcDatabase?.db.close();
      oidcService = await startService(
        {
          PORT: String(servicePort),
          PUBLIC_BASE_URL: `http://127.0.0.1:${servicePort}/v1`,
          OIDC_ISSUER: issuer,
          OIDC_AUDIENCE: 'dashboard',
          OIDC_JWKS_URL: `${issuer}/jwks`,
          OIDC_CLIENT_ID: 'dashboard',
          OIDC_CLIENT_SECRET: clientSecret,
          DEV_AUTH: 'off',
        },
        oidcDatabase?.url ?? null,
      );
      const context = await stack.chromium.browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${servicePort}/library`);
      await page.waitForURL(new RegExp(`^${issuer}/`));
      await page.locator('input[name="login"]').fill('grace@example.com');
      await page.locator('input[name="password"]').fill('any');
      await page.getByRole('button', { name: /sign-in/i }).click();
      await page.getByRole('button', { name: /continue/i }).click();
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor();
      expect(page.url()).toBe(`http://127.0.0.1:${servicePort}/library`);
      await page.getByText('grace@example.com').waitFor();
      // No development sign-in on a service with a provider.
      const dev = await page.request.post(`http://127.0.0.1:${servicePort}/sign-in/dev`, {
        form: { email: 'x@example.com' },
        headers: { origin: `http://127.0.0.1:${servicePort}` },
      });
      expect(dev.status()).toBe(404);
      await context.close();
    } finally {
      await oidcService?.stop();
      await stopProcess(provider.child);
      if (oidcDatabase) await oidcDatabase.drop().catch(() => {});
    }
  });
});

describe('a session idle for 7 days', { timeout: 120_000 }, () => {
  it('must sign in again; activity within the 7 days keeps it (the service’s clock moved through TEST_CLOCK_OFFSET_FILE)', async () => {
    const clockDatabase = process.env.DATABASE_URL ? await createTestDatabase({ poolSize: 1 }) : null;
    const clockDir = mkdtempSync(join(tmpdir(), 'wf-clock-'));
    let clockService: RunningProcess | null = null;
    try {
      await clockDatabase?.db.close();
      const port = await freePort();
      // The service reads the offset in this file at every reading of its clock.
      const offsetFile = join(clockDir, 'offset-ms');
      const moveClock = (ms: number) => writeFileSync(offsetFile, String(ms));
      moveClock(0);
      clockService = await startService(
        { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`, TEST_CLOCK_OFFSET_FILE: offsetFile },
        clockDatabase?.url ?? null,
      );
      const origin = clockService.origin;
      const { context, page } = await newUser('idle@example.com', origin);
      const DAY = 24 * 60 * 60 * 1000;
      const signedIn = async (path: string, heading: string) => {
        await page.goto(`${origin}${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        expect(page.url()).toBe(`${origin}${path}`);
      };

      // 6 idle days, then a page: still signed in, and the visit counts as activity.
      moveClock(6 * DAY);
      await signedIn('/workflows', 'Workflows');
      // 6 more idle days: 12 days after signing in but only 6 since the last visit, still signed in.
      moveClock(12 * DAY);
      await signedIn('/library', 'Library');
      // 7 days and a minute after that visit: the next page load asks to sign in again.
      moveClock(19 * DAY + 60_000);
      await page.goto(`${origin}/account`);
      await page.waitForURL(/\/sign-in\?return=%2Faccount/);
      await page.getByLabel('E-mail address').waitFor();
      // Signing in again leads back to the page asked for.
      await page.getByLabel('E-mail address').fill('idle@example.com');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await context.close();
    } finally {
      await clockService?.stop();
      rmSync(clockDir, { recursive: true, force: true });
      if (clockDatabase) await clockDatabase.drop().catch(() => {});
    }
  });
});
