/**
 * Shapes shared by the rendering layer: what goes in (workflows of a deployment), what
 * comes out (the MCP catalog and call results), and the plan that sits in between.
 */
import type { Adapter, StepAction, WorkflowManifest } from '../../manifest/types.js';

/** Who wrote a workflow and exactly which content is served: shown with every rendering of it. */
export interface WorkflowProvenance {
  /** The author's display name, when they chose one. */
  authorDisplayName: string | null;
  /** The author's stable pseudonym (`user-xxxxxxxx`), unique and never changed. */
  authorHandle: string;
  /** `sha256:<hex>` over the canonical form of everything an agent sees of this version. */
  digest: string;
  /** True when the workflow's author is not the person whose agent is served (a subscription). */
  thirdParty: boolean;
}

export interface RenderableWorkflow {
  workflowId: string;
  name: string;
  description: string;
  version: string;
  manifest: WorkflowManifest;
  /** Absent only where the renderer runs without a database (unit tests of pure rendering). */
  provenance?: WorkflowProvenance;
}

export interface RenderedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  workflowId: string;
  /** Set on the per-step function tools of adapter_three `function_calling`; null on a workflow's main tool. */
  stepId: string | null;
}

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface RenderedPrompt {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  workflowId: string;
}

export interface Catalog {
  adapter: Adapter;
  tools: RenderedTool[];
  prompts: RenderedPrompt[];
}

interface TextContent {
  type: 'text';
  text: string;
}

export interface ToolCallResult {
  content: TextContent[];
  structuredContent: Record<string, unknown>;
}

interface PromptMessage {
  role: 'user' | 'assistant';
  content: TextContent;
}

export interface PromptResult {
  description: string;
  messages: PromptMessage[];
}

/** Tool arguments after validation against the tool's input schema. */
export interface PlanArgs {
  task?: string;
  context?: Record<string, string>;
  inputs?: Record<string, unknown>;
}

interface PlanRetry {
  maxAttempts?: number;
  backoff?: string;
}

/** A step as every adapter sees it; adapters add their own fields. */
export interface PlanStep {
  id: string;
  name: string;
  action: StepAction;
  agent?: string;
  dependsOn: string[];
  parameters: Record<string, unknown>;
  condition?: string;
  retry?: PlanRetry;
  /** 1-based level: `levels[parallelGroup - 1]` holds this step. */
  parallelGroup: number;
  /** The other steps of the same level, which may run at the same time as this one. */
  parallelWith: string[];
}

export interface PlanOutputs {
  type?: string;
  expectedFiles?: string[];
  schema?: Record<string, unknown>;
}

/** The adapter-neutral part of every plan; it is also the start of every `structuredContent`. */
export interface BasePlan {
  workflowId: string;
  name: string;
  version: string;
  adapter: Adapter;
  mode: string;
  intent: string;
  task?: string;
  context: Record<string, unknown>;
  levels: string[][];
  outputs?: PlanOutputs;
}

/** What an adapter produces for one call: Markdown for the agent and the same plan as data. */
export interface RenderedPlan {
  text: string;
  structured: Record<string, unknown>;
}

/** Everything an adapter needs to shape one workflow's plan. */
export interface PlanInput {
  workflow: RenderableWorkflow;
  base: BasePlan;
  steps: PlanStep[];
  args: PlanArgs;
}

export interface AdapterRenderer {
  adapter: Adapter;
  /** The manifest's mode for this adapter, with the adapter's default filled in. */
  modeOf(manifest: WorkflowManifest): string;
  /** Whether each step is offered as a tool of its own in this mode (then `steps` is required). */
  hasStepTools(mode: string): boolean;
  /** How this adapter and mode runs a workflow, one clause addressed to the agent; it leads tool and prompt descriptions. */
  summary(mode: string, manifest: WorkflowManifest): string;
  outputSchema(mode: string): Record<string, unknown>;
  renderPlan(input: PlanInput): RenderedPlan;
  /** The step tools of an adapter that offers them: their output, their answer and their description. */
  steps?: StepToolRenderer;
}

interface StepToolRenderer {
  outputSchema(mode: string): Record<string, unknown>;
  render(input: PlanInput, stepId: string): RenderedPlan;
  /** What a model reads about the step before calling its tool. */
  describe(workflowName: string, manifest: WorkflowManifest, step: PlanStep): string;
}
