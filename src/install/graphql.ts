import { builder } from '../graphql/builder.js';
import { CreatedApiKeyRef } from '../api-keys/graphql.js';
import { DeploymentRef } from '../deployments/graphql.js';
import {
  INSTALL_CLIENTS,
  type ClientInstall,
  type DeploymentInstall,
  type InstallForm,
  type PublicInstallTarget,
} from './clients/index.js';
import { installedWorkflowsOf, type InstalledWorkflow, type InstallKeyResult } from './service.js';

const AuthEnum = builder.enumType('InstallAuth', {
  description: '`oauth`: sign in with this service; `api_key`: the form carries an API key; `none`: an anonymous deployment needs nothing.',
  values: ['oauth', 'api_key', 'none'] as const,
});
const KindEnum = builder.enumType('InstallFormKind', { values: ['deeplink', 'command', 'file', 'steps'] as const });

const FileRef = builder.objectRef<{ path: string; content: string }>('InstallFile').implement({
  description: 'A file to write, or to merge into, at its usual place.',
  fields: (t) => ({ path: t.exposeString('path'), content: t.exposeString('content') }),
});

const FormRef = builder.objectRef<InstallForm>('InstallForm').implement({
  description: "One way into a client: a deeplink (with its web fallback), commands, or steps with a file's content.",
  fields: (t) => ({
    auth: t.field({ type: AuthEnum, resolve: (f) => f.auth }),
    kind: t.field({ type: KindEnum, resolve: (f) => f.kind }),
    label: t.exposeString('label'),
    url: t.exposeString('url', { nullable: true, description: 'The deeplink.' }),
    webUrl: t.exposeString('webUrl', { nullable: true, description: 'An https page that opens the deeplink.' }),
    commands: t.exposeStringList('commands'),
    steps: t.exposeStringList('steps'),
    file: t.field({ type: FileRef, nullable: true, resolve: (f) => f.file }),
    usesApiKey: t.exposeBoolean('usesApiKey'),
  }),
});

const ClientRef = builder.objectRef<ClientInstall>('ClientInstall').implement({
  fields: (t) => ({
    client: t.string({ description: `One of ${INSTALL_CLIENTS.join(', ')}.`, resolve: (c) => c.client }),
    title: t.exposeString('title'),
    forms: t.field({ type: [FormRef], description: 'The preferred form first.', resolve: (c) => c.forms }),
    note: t.exposeString('note', { nullable: true }),
  }),
});

const TargetRef = builder.objectRef<PublicInstallTarget>('InstallTarget').implement({
  description:
    "What every form is made from: the deployment's public data, its tool endpoint and the service's base URL. A program that writes a client's entry itself (wfctl install) adds its own key.",
  fields: (t) => ({
    deploymentId: t.exposeString('deploymentId'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    allowAnonymous: t.exposeBoolean('allowAnonymous'),
    endpoint: t.exposeString('endpoint', { description: 'The tool endpoint, `{base_url}/mcp/<deploymentId>`.' }),
    baseUrl: t.exposeString('baseUrl', { description: 'The base URL of the API, ending in /v1; the install addresses are under it.' }),
  }),
});

const InstalledWorkflowRef = builder.objectRef<InstalledWorkflow>('InstalledWorkflow').implement({
  description: 'A workflow an install brings, at the version its agent is served, with its author and content digest.',
  fields: (t) => ({
    workflowId: t.exposeString('workflowId'),
    name: t.exposeString('name', { description: 'The name at that version.' }),
    version: t.exposeString('version'),
    digest: t.exposeString('digest', {
      description: 'The content digest of that version (docs/marketplace.md, "Versions, pins and content digests").',
    }),
    authorHandle: t.exposeString('authorHandle', { description: "The author's stable handle (user-xxxxxxxx)." }),
    authorDisplayName: t.exposeString('authorDisplayName', {
      nullable: true,
      description: "The author's display name, when they chose one.",
    }),
    thirdParty: t.exposeBoolean('thirdParty', {
      description: "True when another user wrote it (the deployment's owner subscribes to it).",
    }),
  }),
});

const DeploymentInstallRef = builder.objectRef<DeploymentInstall>('DeploymentInstall').implement({
  description:
    "How to install a deployment into each agent client (docs/install.md). Forms that need a key carry '<API_KEY>' unless `apiKeyIncluded`.",
  fields: (t) => ({
    deploymentId: t.exposeString('deploymentId'),
    name: t.exposeString('name'),
    serverName: t.exposeString('serverName', { description: "The server's name in each client's configuration." }),
    endpoint: t.exposeString('endpoint'),
    allowAnonymous: t.exposeBoolean('allowAnonymous'),
    apiKeyIncluded: t.exposeBoolean('apiKeyIncluded'),
    keyBoundEndpoint: t.exposeString('keyBoundEndpoint', {
      nullable: true,
      description: 'The endpoint with the key in its path, for clients that drop a header once OAuth is offered; it never offers OAuth.',
    }),
    claudeMarketplaceUrl: t.exposeString('claudeMarketplaceUrl'),
    claudePlugin: t.exposeString('claudePlugin', { description: '<plugin>@<marketplace>, for claude plugin install.' }),
    skillsSource: t.exposeString('skillsSource', { description: 'What `npx skills add` takes.' }),
    skillsIndexUrl: t.exposeString('skillsIndexUrl'),
    target: t.field({ type: TargetRef, resolve: (d) => d.target }),
    clients: t.field({ type: [ClientRef], resolve: (d) => d.clients }),
    workflows: t.field({
      type: [InstalledWorkflowRef],
      description: 'The workflows the install brings, each at the version served, with its author and content digest.',
      resolve: async (d, _args, ctx) => installedWorkflowsOf(await ctx.loaders.deploymentBundle.load(d.deploymentId)),
    }),
  }),
});

const InstallKeyRef = builder.objectRef<InstallKeyResult>('DeploymentInstallKey').implement({
  description: 'A new API key for one deployment and the install data with it in every form: the only answer that carries the secret.',
  fields: (t) => ({
    apiKey: t.field({ type: CreatedApiKeyRef, resolve: (r) => r.apiKey }),
    install: t.field({ type: DeploymentInstallRef, resolve: (r) => r.install }),
  }),
});

const auth = { authenticated: true } as const;

builder.objectField(DeploymentRef, 'install', (t) =>
  t.field({
    type: DeploymentInstallRef,
    description: 'How to install this deployment into each agent client (the same as Query.deploymentInstall).',
    resolve: (d, _args, ctx) => ctx.services.install.installOf(d),
  }),
);

builder.queryField('deploymentInstall', (t) =>
  t.field({
    type: DeploymentInstallRef,
    description: 'How to install one of your deployments into each agent client. REST: GET /v1/deployments/:deploymentId/install.',
    authScopes: auth,
    args: { deploymentId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.install.getInstall(ctx.viewer!, args.deploymentId),
  }),
);

builder.mutationField('createDeploymentInstallKey', (t) =>
  t.field({
    type: InstallKeyRef,
    description:
      'Makes an API key for one deployment (scope mcp, limited to it) and returns the install data with the key filled in. The key is named "<madeBy>: <deployment name>" ("Install page" when madeBy is not given), with " (2)", " (3)"… when one of your keys has that name already. REST: POST /v1/deployments/:deploymentId/install/key.',
    authScopes: auth,
    args: {
      deploymentId: t.arg.string({ required: true }),
      madeBy: t.arg.string({
        required: false,
        description:
          'Where the key is made, the first part of its name (at most 60 characters): "IDE setup", "wfctl on <hostname>". Default "Install page".',
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.install.createInstallKey(ctx.viewer!, args.deploymentId, args.madeBy),
  }),
);
