import { Command, CommanderError, Option } from 'commander';
import { isOrAre, plural } from '../../src/text.js';
import { Api, currentCredential } from './api.js';
import { browserLogin, deviceLogin, revoke } from './auth.js';
import { credentialStore } from './credentials.js';
import { printUsage, type UsageReport } from './usage.js';
import { AGENT_CLIENTS } from './agents.js';
import { deploy, DEPLOY_FILE } from './deploy.js';
import { doctor, printDoctor } from './doctor.js';
import { install, installFailure, printInstall } from './install.js';
import { checkDir, diff, ensureDir, pull, push, STATE_FILE, validate } from './manifests.js';
import { CliError, createOutput, EXIT, reportError, type Output } from './output.js';
import { serviceOrigin } from './settings.js';

/** wfctl: the workflow service's command line (docs/cli.md). */

const VERSION = '0.1.0';
const json = process.argv.includes('--json');
const out: Output = createOutput(json);

interface Globals {
  service?: string;
  json?: boolean;
}

const program = new Command('wfctl')
  .description('The workflow service from the terminal: sign in, keep manifests as files, push, deploy, install into agent clients.')
  .version(VERSION)
  .option('--service <url>', 'the service (default: WFCTL_SERVICE, else http://127.0.0.1:4000)')
  .option('--json', 'print one JSON document on stdout (errors included) instead of lines for people')
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText(
    'after',
    `
Credentials: WFCTL_API_KEY (an API key of scope "api", for CI) wins over the sign-in of wfctl login.
Exit codes: 0 ok, 1 failure, 2 usage, 3 not signed in or refused, 4 invalid input, 5 conflict,
6 not found, 7 service unreachable or busy, 8 plan limit, 9 doctor found problems. See docs/cli.md.`,
  );

function globals(command: Command): Globals {
  return command.optsWithGlobals() as Globals;
}

function api(command: Command): Api {
  return new Api(serviceOrigin(globals(command).service));
}

/** Every command's action: its result printed as the mode asks; failures exit with their code. */
function action<A extends unknown[]>(run: (...args: A) => Promise<unknown>) {
  return async (...args: A) => {
    await run(...args);
  };
}

program
  .command('login')
  .description('sign in through the browser (a loopback redirect), or with --device on another device (SSH, containers)')
  .option('--device', 'device sign-in: open the address shown on any device and enter the code (RFC 8628)')
  .option('--no-browser', 'do not try to open a browser; only print the address')
  .action(
    action(async (options: { device?: boolean; browser: boolean }, command: Command) => {
      const service = serviceOrigin(globals(command).service);
      const store = credentialStore();
      const credential = options.device
        ? await deviceLogin(service, out, options.browser)
        : await browserLogin(service, out, options.browser);
      const me = await new Api(service, { kind: 'oauth', token: credential.accessToken, stored: credential }).call('GET', '/users/me');
      store.save({ ...credential, email: me.email ?? null });
      out.result({ service, email: me.email ?? null, userId: me.userId, credentialStore: store.name, location: store.location }, () =>
        out.line(`Signed in to ${service} as ${me.email ?? me.userId} (credential kept in ${store.location}).`),
      );
    }),
  );

program
  .command('logout')
  .description("sign out: revoke this machine's sign-in at the service and forget it")
  .action(
    action(async (_options: unknown, command: Command) => {
      const service = serviceOrigin(globals(command).service);
      const store = credentialStore();
      const stored = store.load(service);
      const revoked = stored ? await revoke(stored) : false;
      const removed = store.remove(service);
      out.result({ service, signedOut: removed, revoked }, () =>
        out.line(
          removed
            ? `Signed out of ${service}${revoked ? '' : ' (the service could not be told; the sign-in ends when it expires)'}.`
            : `Not signed in to ${service}.`,
        ),
      );
    }),
  );

program
  .command('whoami')
  .description('who the command line acts as, and with which credential')
  .action(
    action(async (_options: unknown, command: Command) => {
      const service = serviceOrigin(globals(command).service);
      const credential = currentCredential(service);
      const client = new Api(service, credential);
      const me = await client.call('GET', '/users/me');
      const source = credential?.kind === 'api_key' ? 'WFCTL_API_KEY' : credentialStore().location;
      out.result({ service, userId: me.userId, email: me.email ?? null, credential: credential?.kind, source, plan: me.plan ?? null }, () =>
        out.line(
          `${me.email ?? me.userId} on ${service} (${credential?.kind === 'api_key' ? 'API key from WFCTL_API_KEY' : `signed in; ${source}`})`,
        ),
      );
    }),
  );

const dirOption = () => new Option('--dir <path>', 'the directory of the manifest files and wfctl.state.json').default('.');

program
  .command('pull')
  .description(`write your workflows as files, one per workflow, and ${STATE_FILE} (file → workflow id and version)`)
  .addOption(dirOption())
  .addOption(new Option('--format <format>', 'the format of new files').choices(['yaml', 'json']).default('yaml'))
  .option('--force', 'overwrite files edited since the last pull')
  .option('--dry-run', 'show what would be written; write nothing')
  .action(
    action(async (options: { dir: string; format: 'yaml' | 'json'; force?: boolean; dryRun?: boolean }, command: Command) => {
      const result = await pull({
        api: api(command),
        dir: options.dryRun ? checkDir(options.dir) : ensureDir(options.dir),
        format: options.format,
        force: !!options.force,
        dryRun: !!options.dryRun,
        out,
      });
      out.result(result, () => {
        for (const w of result.written) out.line(`${options.dryRun ? 'would write' : 'wrote'} ${w.file} (${w.workflowId} ${w.version})`);
        out.line(`${result.written.length} written, ${result.unchanged.length} unchanged${options.dryRun ? ' (dry run)' : ''}`);
      });
    }),
  );

program
  .command('push')
  .description('create or update workflows from files; an unchanged file makes no new version')
  .argument('[files...]', 'the files to push (default: every .yaml, .yml and .json file of --dir)')
  .addOption(dirOption())
  .option('--force', 'push even when the workflow changed on the service since the last pull (replaces that change)')
  .option('--dry-run', 'show what would be created and updated; send nothing')
  .action(
    action(async (files: string[], options: { dir: string; force?: boolean; dryRun?: boolean }, command: Command) => {
      const result = await push({
        api: api(command),
        dir: checkDir(options.dir),
        files,
        force: !!options.force,
        dryRun: !!options.dryRun,
        out,
      });
      out.result(result, () => {
        const verb = options.dryRun ? 'would ' : '';
        for (const c of result.created) out.line(`${verb}create ${c.file}${c.workflowId ? ` → ${c.workflowId} ${c.to}` : ''}`);
        for (const u of result.updated) out.line(`${verb}update ${u.file} (${u.workflowId}${u.to ? ` ${u.from} → ${u.to}` : ''})`);
        out.line(
          `${result.created.length} created, ${result.updated.length} updated, ${result.unchanged.length} unchanged${options.dryRun ? ' (dry run)' : ''}`,
        );
      });
    }),
  );

program
  .command('diff')
  .description('what a push would change: each file against its workflow on the service')
  .argument('[files...]', 'the files to compare (default: every manifest file of --dir)')
  .addOption(dirOption())
  .option('--exit-code', 'exit with 1 when there are differences')
  .action(
    action(async (files: string[], options: { dir: string; exitCode?: boolean }, command: Command) => {
      const result = await diff({ api: api(command), dir: checkDir(options.dir), files, out });
      out.result(result, () => {
        for (const f of result.files) {
          if (f.status === 'unchanged') continue;
          if (f.status === 'changed-on-service')
            out.line(`# ${f.file}: changed on the service since your last pull (you have ${f.localVersion}, it has ${f.serviceVersion})`);
          out.line(f.patch ?? '');
        }
        out.line(
          `${result.changed} of ${plural(result.files.length, 'file')} ${result.changed === 1 ? 'differs' : 'differ'} from the service`,
        );
      });
      if (options.exitCode && result.changed > 0) process.exitCode = EXIT.FAILURE;
    }),
  );

program
  .command('validate')
  .description("check manifest files offline, with the service's own validator")
  .argument('[files...]', 'the files to check (default: every manifest file of --dir)')
  .addOption(dirOption())
  .action(
    action(async (files: string[], options: { dir: string }) => {
      const results = validate({ dir: checkDir(options.dir), files });
      const invalid = results.filter((r) => !r.valid);
      if (invalid.length > 0) {
        const lines = invalid.flatMap((r) => r.errors.map((e) => `${r.file}: ${e.path || '/'}: ${e.message} (${e.code})`));
        throw new CliError(
          'VALIDATION_ERROR',
          `${invalid.length} of ${plural(results.length, 'file')} ${isOrAre(invalid.length)} not valid:\n${lines.join('\n')}`,
          'Fix what each line names; docs/manifest.md explains every message.',
          { files: results },
        );
      }
      out.result({ files: results }, () => out.line(`${plural(results.length, 'file')} valid`));
    }),
  );

program
  .command('deploy')
  .description('create or update a deployment from a file naming its workflows and adapters')
  .argument('[file]', 'the deploy file', DEPLOY_FILE)
  .option('--dry-run', 'show what would be created or updated; send nothing')
  .addHelpText(
    'after',
    `
The deploy file (YAML or JSON); the deployment is found by its name:
  name: Team pipeline
  description: Plans, builds and reviews
  workflows: [plan-build-review.yaml, wf_0123]   # manifest files of wfctl.state.json, or workflow ids
  adapters: [adapter_one]                        # adapter_one, adapter_two, adapter_three
  allowAnonymous: false`,
  )
  .action(
    action(async (file: string, options: { dryRun?: boolean }, command: Command) => {
      const result = await deploy({ api: api(command), file, dryRun: !!options.dryRun, out });
      out.result(result, () =>
        out.line(
          result.dryRun
            ? `would ${result.action} the deployment '${result.name}' with ${plural((result as { workflowIds: string[] }).workflowIds.length, 'workflow')}`
            : `${result.action} ${(result as { deploymentId: string }).deploymentId}: ${(result as { mcpEndpoint: string }).mcpEndpoint}`,
        ),
      );
    }),
  );

const deployments = program.command('deployments').description('your deployments');
deployments
  .command('list')
  .description('list your deployments with their tool endpoints')
  .option('--status <status>', 'only active or inactive ones')
  .action(
    action(async (options: { status?: string }, command: Command) => {
      if (options.status && !['active', 'inactive'].includes(options.status))
        throw new CliError(
          'USAGE',
          `--status must be active or inactive, not '${options.status}'`,
          'Pass --status active or --status inactive.',
        );
      const list = await api(command).list(`/deployments${options.status ? `?status=${options.status}` : ''}`);
      out.result({ deployments: list }, () => {
        for (const d of list) out.line(`${d.deploymentId}  ${d.status.padEnd(8)}  ${d.name}  ${d.mcpEndpoint}`);
        if (list.length === 0) out.line('no deployments yet: wfctl deploy');
      });
    }),
  );

program
  .command('usage')
  .description("a deployment's usage (calls by tool, adapter and day)")
  .argument('<deploymentId>', 'the deployment')
  .option('--period <period>', "day, week or month (the service's default when left out)")
  .action(
    action(async (deploymentId: string, options: { period?: string }, command: Command) => {
      const usage = (await api(command).call(
        'GET',
        `/deployments/${encodeURIComponent(deploymentId)}/usage${options.period ? `?period=${encodeURIComponent(options.period)}` : ''}`,
      )) as UsageReport;
      out.result(usage, () => printUsage(usage, out));
    }),
  );

const marketplace = program.command('marketplace').description('public workflows of the marketplace');
marketplace
  .command('search')
  .description('search public workflows by text')
  .argument('<query>', 'the search text')
  .option('--category <category>', 'only this category')
  .option('--limit <n>', 'at most this many results (1 to 100)', '20')
  .action(
    action(async (query: string, options: { category?: string; limit: string }, command: Command) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new CliError(
          'USAGE',
          `--limit must be a whole number from 1 to 100, not '${options.limit}'`,
          'Pass --limit 20, for example.',
        );
      const params = new URLSearchParams({ q: query, limit: String(limit) });
      if (options.category) params.set('category', options.category);
      const found = await api(command).call('GET', `/marketplace/search?${params}`);
      out.result({ workflows: found }, () => {
        for (const w of found)
          out.line(`${w.workflowId}  ${w.name}${w.stats ? `  ★ ${w.stats.rating ?? '-'} (${w.stats.subscribers ?? 0} subscribers)` : ''}`);
        if (found.length === 0) out.line('nothing found');
      });
    }),
  );

program
  .command('subscribe')
  .description('add a public workflow to your library (kept up to date)')
  .argument('<workflowId>', 'the workflow')
  .option('--dry-run', 'check the workflow exists; change nothing')
  .action(
    action(async (workflowId: string, options: { dryRun?: boolean }, command: Command) => {
      const client = api(command);
      if (options.dryRun) {
        const workflow = await client.call('GET', `/workflows/${encodeURIComponent(workflowId)}`);
        return out.result({ dryRun: true, workflowId, name: workflow.name }, () =>
          out.line(`would subscribe to ${workflowId} (${workflow.name})`),
        );
      }
      const entry = await client.call('POST', `/library/${encodeURIComponent(workflowId)}`, {});
      out.result(entry, () => out.line(`subscribed to ${workflowId}`));
    }),
  );

program
  .command('fork')
  .description('copy a workflow into your own workflows')
  .argument('<workflowId>', 'the workflow to fork')
  .option('--name <name>', 'the name of the copy (default: the original name followed by (copy))')
  .option('--dry-run', 'check the workflow exists; change nothing')
  .action(
    action(async (workflowId: string, options: { name?: string; dryRun?: boolean }, command: Command) => {
      const client = api(command);
      if (options.dryRun) {
        const workflow = await client.call('GET', `/workflows/${encodeURIComponent(workflowId)}`);
        return out.result({ dryRun: true, workflowId, name: options.name ?? `${workflow.name} (copy)` }, () =>
          out.line(`would fork ${workflowId} (${workflow.name})`),
        );
      }
      const fork = await client.call(
        'POST',
        `/workflows/${encodeURIComponent(workflowId)}/fork`,
        options.name ? { name: options.name } : {},
      );
      out.result(fork, () => out.line(`forked into ${fork.workflowId} (${fork.name}); wfctl pull writes it as a file`));
    }),
  );

program
  .command('install')
  .description("write a deployment's server into each agent client's own configuration file")
  .argument('<deploymentId>', 'the deployment (wfctl deployments list)')
  .requiredOption(
    '--client <name>',
    `all (every client found on this machine), or one or more of ${AGENT_CLIENTS.join(', ')}, separated by commas`,
  )
  .option(
    '--api-key <key>',
    'write this API key (default: WFCTL_INSTALL_KEY, else the key already configured if still accepted, else a new one)',
  )
  .option('--oauth', 'write no key: each client signs in with OAuth on first use')
  .option('--dry-run', 'show what would be written (the key as <API_KEY>); write nothing and create no key')
  .addHelpText(
    'after',
    `
Files (merged: other servers and settings are kept; an unchanged file is not rewritten):
  claude-code      ~/.claude.json (mcpServers, user scope)
  cursor           ~/.cursor/mcp.json (the key-bound URL: Cursor drops a header when OAuth is offered)
  vscode           ~/.config/Code/User/mcp.json (servers; macOS ~/Library/Application Support/Code/User)
  vscode-insiders  ~/.config/Code - Insiders/User/mcp.json
  windsurf         ~/.codeium/windsurf/mcp_config.json
  gemini-cli       ~/.gemini/settings.json
  codex            ~/.codex/config.toml ([mcp_servers.<name>], the key-bound URL)
  claude-desktop   no file: the steps to add it as a custom connector are printed`,
  )
  .action(
    action(
      async (deploymentId: string, options: { client: string; apiKey?: string; oauth?: boolean; dryRun?: boolean }, command: Command) => {
        if (options.oauth && options.apiKey)
          throw new CliError(
            'USAGE',
            '--oauth and --api-key exclude each other',
            'Pass one of them, or neither (a key is then made once).',
          );
        const result = await install({
          api: api(command),
          deploymentId,
          clients: options.client,
          apiKey: options.oauth ? undefined : (options.apiKey ?? (process.env.WFCTL_INSTALL_KEY || undefined)),
          oauth: !!options.oauth,
          dryRun: !!options.dryRun,
          out,
        });
        const failure = installFailure(result);
        if (failure && json) throw failure;
        out.result(result, () => printInstall(result, out));
        if (failure) throw failure;
      },
    ),
  );

program
  .command('doctor')
  .description(
    "check each agent client's configuration: the file, the server entry, the connection, the credential, header-versus-OAuth conflicts",
  )
  .argument('[deploymentId]', 'the deployment that must be installed (default: any of the service found in the files)')
  .option('--client <name>', `all, or one or more of ${AGENT_CLIENTS.join(', ')}, separated by commas`, 'all')
  .addHelpText('after', '\nExits 9 when a problem is found; each problem says what to do.')
  .action(
    action(async (deploymentId: string | undefined, options: { client: string }, command: Command) => {
      const result = await doctor({ deploymentId, clients: options.client, service: serviceOrigin(globals(command).service), out });
      out.result(result, () => printDoctor(result, out));
      if (!result.ok) process.exitCode = EXIT.DOCTOR;
    }),
  );

program.exitOverride();
program.configureOutput({
  // commander's own usage errors are reported like every other error (JSON in --json mode).
  writeErr: (text) => {
    if (!json) process.stderr.write(text);
  },
});
for (const command of program.commands) {
  command.exitOverride();
  for (const sub of command.commands) sub.exitOverride();
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
      process.exit(EXIT.OK);
    if (json)
      process.exitCode = reportError(
        new CliError('USAGE', error.message.replace(/^error: /, ''), 'Run wfctl --help (or wfctl <command> --help) for usage.'),
        true,
      );
    else process.exitCode = EXIT.USAGE;
  } else {
    process.exitCode = reportError(error, json);
  }
}
