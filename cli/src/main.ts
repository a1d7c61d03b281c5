import { Argument, Command, CommanderError, Option } from 'commander';
import { Api } from './api.js';
import { AGENT_CLIENTS } from './agents.js';
import type { CommandContext } from './commands/context.js';
import { auditLogCommand, type AuditLogOptions } from './commands/audit-log.js';
import { deployCommand } from './commands/deploy.js';
import { listDeployments } from './commands/deployments-list.js';
import { diffCommand } from './commands/diff.js';
import { doctorCommand } from './commands/doctor.js';
import { fork } from './commands/fork.js';
import { installCommand } from './commands/install.js';
import { login } from './commands/login.js';
import { logout } from './commands/logout.js';
import { searchMarketplace } from './commands/marketplace-search.js';
import { pullCommand } from './commands/pull.js';
import { pushCommand } from './commands/push.js';
import { subscribe } from './commands/subscribe.js';
import { createTeam } from './commands/teams-create.js';
import { inviteToTeam } from './commands/teams-invite.js';
import { listTeams } from './commands/teams-list.js';
import { listTeamMembers } from './commands/teams-members.js';
import { removeTeamMember } from './commands/teams-remove.js';
import { setTeamRole } from './commands/teams-role.js';
import { usageCommand } from './commands/usage.js';
import { validateCommand } from './commands/validate.js';
import { whoami } from './commands/whoami.js';
import { DEPLOY_FILE } from './deploy.js';
import { STATE_FILE } from './manifests.js';
import { CliError, createOutput, EXIT, reportError, type Output } from './output.js';
import { serviceOrigin } from './settings.js';

/**
 * wfctl: the workflow service's command line (docs/cli.md). This file declares the commands, their
 * arguments and options; each command's action is a file of its own under commands/.
 */

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

/** The context of a command's action: the service is read from the options only when the action asks for it. */
function contextOf(command: Command): CommandContext {
  const service = () => serviceOrigin(globals(command).service);
  return { out, json, service, api: () => new Api(service()) };
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
  .action(action((options: { device?: boolean; browser: boolean }, command: Command) => login(contextOf(command), options)));

program
  .command('logout')
  .description("sign out: revoke this machine's sign-in at the service and forget it")
  .action(action((_options: unknown, command: Command) => logout(contextOf(command))));

program
  .command('whoami')
  .description('who the command line acts as, and with which credential')
  .action(action((_options: unknown, command: Command) => whoami(contextOf(command))));

const dirOption = () => new Option('--dir <path>', 'the directory of the manifest files and wfctl.state.json').default('.');

program
  .command('pull')
  .description(`write your workflows as files, one per workflow, and ${STATE_FILE} (file → workflow id and version)`)
  .addOption(dirOption())
  .addOption(new Option('--format <format>', 'the format of new files').choices(['yaml', 'json']).default('yaml'))
  .option('--force', 'overwrite files edited since the last pull')
  .option('--dry-run', 'show what would be written; write nothing')
  .action(
    action((options: { dir: string; format: 'yaml' | 'json'; force?: boolean; dryRun?: boolean }, command: Command) =>
      pullCommand(contextOf(command), options),
    ),
  );

program
  .command('push')
  .description('create or update workflows from files; an unchanged file makes no new version')
  .argument('[files...]', 'the files to push (default: every .yaml, .yml and .json file of --dir)')
  .addOption(dirOption())
  .option('--force', 'push even when the workflow changed on the service since the last pull (replaces that change)')
  .option('--dry-run', 'show what would be created and updated; send nothing')
  .action(
    action((files: string[], options: { dir: string; force?: boolean; dryRun?: boolean }, command: Command) =>
      pushCommand(contextOf(command), files, options),
    ),
  );

program
  .command('diff')
  .description('what a push would change: each file against its workflow on the service')
  .argument('[files...]', 'the files to compare (default: every manifest file of --dir)')
  .addOption(dirOption())
  .option('--exit-code', 'exit with 1 when there are differences')
  .action(
    action((files: string[], options: { dir: string; exitCode?: boolean }, command: Command) =>
      diffCommand(contextOf(command), files, options),
    ),
  );

program
  .command('validate')
  .description("check manifest files offline, with the service's own validator")
  .argument('[files...]', 'the files to check (default: every manifest file of --dir)')
  .addOption(dirOption())
  .action(action((files: string[], options: { dir: string }, command: Command) => validateCommand(contextOf(command), files, options)));

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
  .action(action((file: string, options: { dryRun?: boolean }, command: Command) => deployCommand(contextOf(command), file, options)));

const deployments = program.command('deployments').description('your deployments');
deployments
  .command('list')
  .description('list your deployments with their tool endpoints')
  .option('--status <status>', 'only active or inactive ones')
  .action(action((options: { status?: string }, command: Command) => listDeployments(contextOf(command), options)));

program
  .command('usage')
  .description("a deployment's usage (calls by tool, adapter and day)")
  .argument('<deploymentId>', 'the deployment')
  .option('--period <period>', "day, week or month (the service's default when left out)")
  .action(
    action((deploymentId: string, options: { period?: string }, command: Command) =>
      usageCommand(contextOf(command), deploymentId, options),
    ),
  );

const teams = program
  .command('teams')
  .description('the teams you are in, with your role (docs/teams.md); the subcommands manage one')
  .action(action((_options: unknown, command: Command) => listTeams(contextOf(command))));
teams
  .command('create')
  .description('create a team; you are its owner and billing owner')
  .argument('<name>', 'the team name (1 to 100 characters)')
  .option('--dry-run', 'show what would be created; send nothing')
  .action(action((name: string, options: { dryRun?: boolean }, command: Command) => createTeam(contextOf(command), name, options)));
teams
  .command('members')
  .description("a team's members with their roles")
  .argument('<teamId>', 'the team (wfctl teams)')
  .action(action((teamId: string, _options: unknown, command: Command) => listTeamMembers(contextOf(command), teamId)));
teams
  .command('invite')
  .description('invite an e-mail address (owners and admins); it gets a link to join, valid 7 days')
  .argument('<teamId>', 'the team (wfctl teams)')
  .argument('<email>', 'the address to invite')
  .addOption(new Option('--role <role>', 'the role on joining').choices(['admin', 'member']).default('member'))
  .option('--dry-run', 'check the team is yours; send no invitation')
  .action(
    action((teamId: string, email: string, options: { role: string; dryRun?: boolean }, command: Command) =>
      inviteToTeam(contextOf(command), teamId, email, options),
    ),
  );
teams
  .command('remove')
  .description('remove a member (owners and admins), or yourself to leave')
  .argument('<teamId>', 'the team (wfctl teams)')
  .argument('<userId>', 'the member (wfctl teams members)')
  .option('--dry-run', 'check the member exists; remove nobody')
  .action(
    action((teamId: string, userId: string, options: { dryRun?: boolean }, command: Command) =>
      removeTeamMember(contextOf(command), teamId, userId, options),
    ),
  );
teams
  .command('role')
  .description("change a member's role (owners and admins; making or changing an owner: owners only)")
  .argument('<teamId>', 'the team (wfctl teams)')
  .argument('<userId>', 'the member (wfctl teams members)')
  .addArgument(new Argument('<role>', 'the new role').choices(['owner', 'admin', 'member']))
  .option('--dry-run', 'check the member exists; change nothing')
  .action(
    action((teamId: string, userId: string, role: string, options: { dryRun?: boolean }, command: Command) =>
      setTeamRole(contextOf(command), teamId, userId, role, options),
    ),
  );

program
  .command('audit-log')
  .description("a team's audit log (owners and admins), or without --team your own security events, newest first")
  .option('--team <teamId>', "the team's log rather than your own")
  .option('--action <action>', 'only this action, e.g. member.joined')
  .option('--actor <userId>', 'only what this user did')
  .option('--target-type <type>', 'only entries about this kind of target, e.g. user, invitation, api_key')
  .option('--since <time>', 'only entries at or after this ISO 8601 date or time (2026-01-31, 2026-01-31T12:00:00Z)')
  .option('--until <time>', 'only entries before this ISO 8601 date or time')
  .option('--limit <n>', 'at most this many entries (1 to 100)', '50')
  .option('--csv', 'print the CSV export (the newest 10,000 entries that pass the filters)')
  .action(action((options: AuditLogOptions, command: Command) => auditLogCommand(contextOf(command), options)));

const marketplace = program.command('marketplace').description('public workflows of the marketplace');
marketplace
  .command('search')
  .description('search public workflows by text')
  .argument('<query>', 'the search text')
  .option('--category <category>', 'only this category')
  .option('--limit <n>', 'at most this many results (1 to 100)', '20')
  .action(
    action((query: string, options: { category?: string; limit: string }, command: Command) =>
      searchMarketplace(contextOf(command), query, options),
    ),
  );

program
  .command('subscribe')
  .description('add a public workflow to your library (kept up to date)')
  .argument('<workflowId>', 'the workflow')
  .option('--dry-run', 'check the workflow exists; change nothing')
  .action(
    action((workflowId: string, options: { dryRun?: boolean }, command: Command) => subscribe(contextOf(command), workflowId, options)),
  );

program
  .command('fork')
  .description('copy a workflow into your own workflows')
  .argument('<workflowId>', 'the workflow to fork')
  .option('--name <name>', 'the name of the copy (default: the original name followed by (copy))')
  .option('--dry-run', 'check the workflow exists; change nothing')
  .action(
    action((workflowId: string, options: { name?: string; dryRun?: boolean }, command: Command) =>
      fork(contextOf(command), workflowId, options),
    ),
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
    action((deploymentId: string, options: { client: string; apiKey?: string; oauth?: boolean; dryRun?: boolean }, command: Command) =>
      installCommand(contextOf(command), deploymentId, options),
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
    action((deploymentId: string | undefined, options: { client: string }, command: Command) =>
      doctorCommand(contextOf(command), deploymentId, options),
    ),
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
