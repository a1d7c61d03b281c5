/**
 * Word lists for the seed data: realistic workflow names, descriptions, tags and steps for
 * AI coding agents. Every step action is one of the 32 of src/manifest/types.ts.
 */
import type { StepAction } from '../../src/manifest/types.js';

export interface Stack {
  /** As people write it, for names and descriptions. */
  label: string;
  language: string;
  framework?: string;
  test_framework?: string;
  tag: string;
}

export const STACKS: Stack[] = [
  { label: 'React', language: 'typescript', framework: 'react', test_framework: 'vitest', tag: 'react' },
  { label: 'NestJS', language: 'typescript', framework: 'nestjs', test_framework: 'jest', tag: 'nestjs' },
  { label: 'Next.js', language: 'typescript', framework: 'next.js', test_framework: 'playwright', tag: 'nextjs' },
  { label: 'Express', language: 'javascript', framework: 'express', test_framework: 'mocha', tag: 'express' },
  { label: 'Django', language: 'python', framework: 'django', test_framework: 'pytest', tag: 'django' },
  { label: 'FastAPI', language: 'python', framework: 'fastapi', test_framework: 'pytest', tag: 'fastapi' },
  { label: 'pandas', language: 'python', framework: 'pandas', test_framework: 'pytest', tag: 'pandas' },
  { label: 'Go', language: 'go', framework: 'gin', test_framework: 'go test', tag: 'golang' },
  { label: 'Rust', language: 'rust', framework: 'axum', test_framework: 'cargo test', tag: 'rust' },
  { label: 'Spring Boot', language: 'java', framework: 'spring boot', test_framework: 'junit', tag: 'spring' },
  { label: 'Ktor', language: 'kotlin', framework: 'ktor', test_framework: 'kotest', tag: 'kotlin' },
  { label: 'Rails', language: 'ruby', framework: 'rails', test_framework: 'rspec', tag: 'rails' },
  { label: 'Laravel', language: 'php', framework: 'laravel', test_framework: 'phpunit', tag: 'laravel' },
  { label: 'ASP.NET Core', language: 'csharp', framework: 'asp.net core', test_framework: 'xunit', tag: 'dotnet' },
  { label: 'SwiftUI', language: 'swift', framework: 'swiftui', test_framework: 'xctest', tag: 'ios' },
  { label: 'Phoenix', language: 'elixir', framework: 'phoenix', test_framework: 'exunit', tag: 'elixir' },
  { label: 'Terraform', language: 'terraform', tag: 'terraform' },
  { label: 'PostgreSQL', language: 'sql', framework: 'postgresql', tag: 'postgres' },
];

export interface Category {
  name: string;
  subjects: string[];
  tags: string[];
  goals: string[];
}

export const CATEGORIES: Category[] = [
  {
    name: 'testing',
    subjects: [
      'unit test generator',
      'flaky test hunter',
      'coverage booster',
      'snapshot refresher',
      'property-based test writer',
      'end-to-end test scaffold',
      'regression test builder',
      'mutation testing run',
    ],
    tags: ['tests', 'coverage', 'tdd', 'qa', 'ci'],
    goals: [
      'raise test coverage on changed files',
      'find and fix flaky tests',
      'write missing tests for a module',
      'turn a bug report into a failing test first',
    ],
  },
  {
    name: 'review',
    subjects: [
      'pull request reviewer',
      'code review checklist',
      'review summarizer',
      'style guide enforcer',
      'second-opinion reviewer',
      'diff explainer',
    ],
    tags: ['code-review', 'pull-requests', 'quality', 'lint'],
    goals: [
      'review a pull request for bugs and style',
      'summarize a large diff for reviewers',
      'check a change against the team style guide',
    ],
  },
  {
    name: 'refactoring',
    subjects: [
      'dead code remover',
      'module splitter',
      'rename assistant',
      'legacy modernizer',
      'type tightening pass',
      'dependency untangler',
    ],
    tags: ['refactor', 'cleanup', 'tech-debt', 'types'],
    goals: ['split a large module into smaller ones', 'remove dead code safely', 'modernize a legacy component without changing behaviour'],
  },
  {
    name: 'documentation',
    subjects: ['README writer', 'API docs generator', 'changelog drafter', 'architecture notes', 'docstring filler', 'onboarding guide'],
    tags: ['docs', 'readme', 'changelog', 'onboarding'],
    goals: ['document a public API from its code', 'draft the changelog of a release', 'write an onboarding guide for new contributors'],
  },
  {
    name: 'security',
    subjects: ['dependency audit', 'secret scanner', 'auth flow reviewer', 'injection hunter', 'threat model helper', 'CVE patcher'],
    tags: ['security', 'audit', 'owasp', 'dependencies'],
    goals: ['audit dependencies and patch known vulnerabilities', 'find SQL injection and XSS risks', 'review an authentication flow'],
  },
  {
    name: 'devops',
    subjects: [
      'CI pipeline fixer',
      'Dockerfile optimizer',
      'deploy checklist',
      'Helm chart updater',
      'GitHub Actions tuner',
      'infra drift detector',
    ],
    tags: ['ci', 'docker', 'kubernetes', 'deploy', 'github-actions'],
    goals: ['fix a failing CI pipeline', 'shrink and harden a Docker image', 'prepare a safe production deploy'],
  },
  {
    name: 'data',
    subjects: [
      'schema migration planner',
      'query optimizer',
      'ETL job builder',
      'data quality checker',
      'notebook cleaner',
      'index advisor',
    ],
    tags: ['database', 'sql', 'etl', 'analytics', 'migrations'],
    goals: ['plan a zero-downtime schema migration', 'speed up slow queries', 'add data quality checks to a pipeline'],
  },
  {
    name: 'frontend',
    subjects: [
      'component builder',
      'accessibility fixer',
      'bundle size trimmer',
      'design system sync',
      'form validation helper',
      'CSS cleanup',
    ],
    tags: ['ui', 'accessibility', 'css', 'components'],
    goals: ['build a component from a design', 'fix accessibility issues on a page', 'trim the bundle size of an app'],
  },
  {
    name: 'backend',
    subjects: [
      'endpoint scaffolder',
      'API versioning helper',
      'caching layer',
      'background job builder',
      'rate limiter',
      'error handling pass',
    ],
    tags: ['api', 'rest', 'graphql', 'caching', 'queues'],
    goals: ['add a new REST endpoint with tests', 'introduce caching for a slow endpoint', 'move slow work to background jobs'],
  },
  {
    name: 'performance',
    subjects: [
      'profiling session',
      'memory leak finder',
      'hot path optimizer',
      'benchmark harness',
      'N+1 query fixer',
      'startup time reducer',
    ],
    tags: ['performance', 'profiling', 'benchmarks', 'latency'],
    goals: ['find and fix a memory leak', 'remove N+1 queries', 'measure and shorten startup time'],
  },
  {
    name: 'release',
    subjects: ['release manager', 'version bumper', 'release notes writer', 'hotfix flow', 'feature flag cleanup', 'rollback planner'],
    tags: ['release', 'semver', 'hotfix', 'feature-flags'],
    goals: ['cut a release with notes and a version bump', 'ship a hotfix safely', 'clean up stale feature flags'],
  },
  {
    name: 'incidents',
    subjects: ['incident triage', 'log investigator', 'postmortem writer', 'alert tuner', 'root cause finder', 'on-call helper'],
    tags: ['incident', 'observability', 'logs', 'postmortem', 'sre'],
    goals: ['triage a production incident from its logs', 'write a blameless postmortem', 'find the root cause of an error spike'],
  },
  {
    name: 'migrations',
    subjects: ['framework upgrade', 'language version bump', 'library migration', 'monorepo move', 'API client migration', 'ORM switch'],
    tags: ['upgrade', 'migration', 'dependencies', 'breaking-changes'],
    goals: ['upgrade a framework to its next major version', 'migrate from one library to another', 'move a service into the monorepo'],
  },
  {
    name: 'research',
    subjects: [
      'codebase explorer',
      'library comparison',
      'spike planner',
      'feasibility study',
      'prior art search',
      'architecture decision record',
    ],
    tags: ['research', 'architecture', 'adr', 'exploration'],
    goals: ['compare libraries for a new feature', 'explore an unfamiliar codebase', 'write an architecture decision record'],
  },
];

export const NAME_PREFIXES = [
  '',
  '',
  '',
  'Quick ',
  'Safe ',
  'Nightly ',
  'Guided ',
  'Team ',
  'Automated ',
  'Incremental ',
  'Strict ',
  'Lightweight ',
  'Full ',
  'Smart ',
];

export const BENEFITS = [
  'so reviewers see a smaller, clearer change',
  'without breaking existing behaviour',
  'with a human approval before anything is merged',
  'and opens a pull request with the result',
  'and posts a summary to the team channel',
  'in small, reversible steps',
  'following the conventions already in the repository',
  'and explains every change it makes',
];

export interface StepTemplate {
  id: string;
  names: string[];
}

/** Step names per action; the id is the base of the step id. */
export const STEP_LIBRARY: Record<StepAction, StepTemplate> = {
  code_agent: { id: 'implement', names: ['Implement the change', 'Write the code', 'Apply the fix'] },
  research_agent: { id: 'research', names: ['Research the options', 'Gather background', 'Read the related issues'] },
  planning_agent: { id: 'plan', names: ['Plan the change', 'Break the task down', 'Draft a plan'] },
  review_agent: { id: 'review', names: ['Review the result', 'Review the diff', 'Check for mistakes'] },
  test_agent: { id: 'test', names: ['Test the change', 'Run and fix tests', 'Verify behaviour'] },
  docs_agent: { id: 'document', names: ['Update the docs', 'Write documentation', 'Explain the change'] },
  custom_agent: { id: 'specialist', names: ['Ask the specialist agent', 'Run the custom checker', 'Domain expert pass'] },
  github_integration: { id: 'open_pr', names: ['Open a pull request', 'Comment on the pull request', 'Label the issue'] },
  slack_integration: { id: 'notify', names: ['Notify the team', 'Post a summary', 'Ping the owner'] },
  notion_integration: { id: 'record', names: ['Record in the wiki', 'Update the knowledge base', 'Save the notes'] },
  jira_integration: { id: 'ticket', names: ['Update the ticket', 'Create follow-up tickets', 'Move the issue'] },
  linear_integration: { id: 'issue', names: ['Update the issue', 'File follow-ups', 'Close the issue'] },
  database_integration: { id: 'query_db', names: ['Inspect the schema', 'Run the query plan', 'Check the data'] },
  api_integration: { id: 'call_api', names: ['Call the service API', 'Fetch the metrics', 'Query the registry'] },
  webhook_integration: { id: 'webhook', names: ['Trigger the webhook', 'Notify the pipeline', 'Send the event'] },
  file_read: { id: 'read', names: ['Read the relevant files', 'Load the configuration', 'Read the logs'] },
  file_write: { id: 'write', names: ['Write the report', 'Save the output', 'Write the config'] },
  shell_execute: { id: 'shell', names: ['Run the build', 'Run the linter', 'Run the script'] },
  search_codebase: { id: 'search', names: ['Search the codebase', 'Find the call sites', 'Locate the module'] },
  condition: { id: 'check', names: ['Check the outcome', 'Decide whether to continue', 'Gate on the result'] },
  loop: { id: 'repeat', names: ['Repeat until green', 'Iterate over the files', 'Loop over packages'] },
  parallel: { id: 'fan_out', names: ['Work in parallel', 'Fan out per package', 'Split the work'] },
  human_input: { id: 'approve', names: ['Ask for approval', 'Confirm with a human', 'Wait for sign-off'] },
  analyze_code: { id: 'analyze', names: ['Analyze the code', 'Map the dependencies', 'Study the module'] },
  edit_file: { id: 'edit', names: ['Edit the file', 'Patch the config', 'Adjust the entry point'] },
  edit_files: { id: 'edit_many', names: ['Edit the affected files', 'Apply the codemod', 'Update every call site'] },
  generate_code: { id: 'generate', names: ['Generate the scaffold', 'Generate the client', 'Generate boilerplate'] },
  generate_tests: { id: 'write_tests', names: ['Write the tests', 'Generate test cases', 'Add regression tests'] },
  execute_command: { id: 'run', names: ['Run the test suite', 'Run the benchmarks', 'Run the migration'] },
  search_references: { id: 'references', names: ['Find references', 'Look up usages', 'Trace the callers'] },
  design_architecture: { id: 'design', names: ['Design the approach', 'Sketch the architecture', 'Propose the structure'] },
  review_and_commit: { id: 'commit', names: ['Review and commit', 'Commit the change', 'Finalize the commit'] },
};

/** Where an action usually sits in a workflow: opening, doing the work, or closing. */
export const OPENING: StepAction[] = [
  'analyze_code',
  'research_agent',
  'planning_agent',
  'search_codebase',
  'file_read',
  'design_architecture',
  'search_references',
  'database_integration',
  'api_integration',
];
export const WORK: StepAction[] = [
  'code_agent',
  'edit_file',
  'edit_files',
  'generate_code',
  'generate_tests',
  'test_agent',
  'execute_command',
  'shell_execute',
  'custom_agent',
  'condition',
  'loop',
  'parallel',
  'file_write',
  'docs_agent',
];
export const CLOSING: StepAction[] = [
  'review_agent',
  'review_and_commit',
  'human_input',
  'github_integration',
  'slack_integration',
  'notion_integration',
  'jira_integration',
  'linear_integration',
  'webhook_integration',
];

export const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Guido',
  'Radia',
  'Yukihiro',
  'Anders',
  'Hedy',
  'Tim',
  'Sophie',
  'Bjarne',
  'Katherine',
  'Rasmus',
  'Jean',
  'Alan',
  'Mary',
  'Brendan',
  'Adele',
  'James',
];
export const LAST_NAMES = [
  'Hopper',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'van Rossum',
  'Perlman',
  'Matsumoto',
  'Hejlsberg',
  'Lamarr',
  'Wilson',
  'Stroustrup',
  'Johnson',
  'Lerdorf',
  'Sammet',
  'Turing',
  'Keller',
  'Eich',
  'Goldberg',
  'Gosling',
];

export const REVIEW_OPENERS = [
  'Works well',
  'Solid workflow',
  'Saved me time',
  'Useful, with caveats',
  'Not for my setup',
  'Great starting point',
  'Does what it says',
  'A bit slow',
  'Excellent',
  'Needed tweaks',
];
export const REVIEW_DETAILS = [
  'on a medium-sized repository.',
  'after I adjusted the test command.',
  'and the review step catches real issues.',
  'though the plan step is sometimes too long.',
  'for our monorepo with several packages.',
  'and the team liked the summaries.',
  'but I had to disable one adapter.',
  'once I pinned the framework version.',
];
