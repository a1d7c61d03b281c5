/**
 * The MCP catalog a client sees (tools and prompts) for a deployment's workflows, and tool calls
 * and prompt requests answered from it, each shaped by the client's adapter's renderer. Pure: the
 * same workflows and arguments always give the same output.
 */
import { BoundedCache } from '../../cache/bounded.js';
import { AppError, notFound } from '../../errors.js';
import type { Adapter } from '../../manifest/types.js';
import { oneLine } from './markdown.js';
import { mainToolName, promptName, stepToolName } from './names.js';
import { buildPlanInput } from './plan.js';
import { rendererFor } from './renderers.js';
import { mapInSlices } from './yielding.js';
import { mainInputSchema, PROMPT_ARGUMENTS, promptInputSchema, stepInputSchema, validateArgs } from './schemas.js';
import { authorTextClosing, authorTextOpening, inertArgs, inertDocument, inertWorkflow, markedInline, namingName } from './untrusted.js';
import type {
  AdapterRenderer,
  Catalog,
  PlanArgs,
  PromptResult,
  RenderableWorkflow,
  RenderedPrompt,
  RenderedTool,
  ToolCallResult,
} from './types.js';

/** The author's description (else the intent), marked as the author's, then the service's own words. */
function describe(workflow: RenderableWorkflow, how: string): string {
  const own = oneLine(workflow.description) || oneLine(workflow.manifest.intent);
  return inertDocument(`${markedInline(workflow, own)} (version ${oneLine(workflow.version)}) ${how}`);
}

function mainTool(workflow: RenderableWorkflow, renderer: AdapterRenderer, mode: string): RenderedTool {
  return {
    name: mainToolName(namingName(workflow), workflow.workflowId),
    title: oneLine(workflow.name),
    description: describe(workflow, `Returns the plan: ${renderer.summary(mode, workflow.manifest)}`),
    inputSchema: mainInputSchema(workflow.manifest.context),
    outputSchema: renderer.outputSchema(mode),
    workflowId: workflow.workflowId,
    stepId: null,
  };
}

function stepTools(workflow: RenderableWorkflow, renderer: AdapterRenderer, mode: string): RenderedTool[] {
  const stepRenderer = renderer.steps;
  if (!renderer.hasStepTools(mode) || !stepRenderer) return [];
  const outputSchema = stepRenderer.outputSchema(mode);
  // Dependency order, so listing the tools already suggests the order to call them in.
  const { steps } = buildPlanInput(workflow, renderer.adapter, mode, {});
  return steps.map((step) => ({
    name: stepToolName(namingName(workflow), workflow.workflowId, step.id),
    title: inertDocument(`${oneLine(workflow.name)}: ${oneLine(step.name)}`),
    description: inertDocument(markedInline(workflow, stepRenderer.describe(workflow.name, workflow.manifest, step))),
    inputSchema: stepInputSchema(workflow.manifest.context, step.dependsOn),
    outputSchema,
    workflowId: workflow.workflowId,
    stepId: step.id,
  }));
}

function prompt(workflow: RenderableWorkflow, renderer: AdapterRenderer, mode: string): RenderedPrompt {
  return {
    name: promptName(namingName(workflow), workflow.workflowId),
    title: oneLine(workflow.name),
    // Prompts are picked by the user (slash commands), so this one speaks to the user, not the agent.
    description: describe(workflow, `Sends the agent this workflow's plan for ${renderer.adapter} (${mode} mode).`),
    arguments: PROMPT_ARGUMENTS.map((a) => ({ ...a })),
    workflowId: workflow.workflowId,
  };
}

/** Names are derived from each workflow alone, so a clash means bad input, never a reason to rename. */
function assertUnique(workflows: readonly RenderableWorkflow[], catalog: Catalog): void {
  const ids = new Set<string>();
  for (const w of workflows) {
    if (ids.has(w.workflowId)) {
      throw new AppError('INTERNAL_ERROR', `workflow '${w.workflowId}' appears more than once in the deployment`, {
        workflowId: w.workflowId,
      });
    }
    ids.add(w.workflowId);
  }
  const names = new Set<string>();
  for (const { name } of [...catalog.tools, ...catalog.prompts]) {
    if (names.has(name)) throw new AppError('INTERNAL_ERROR', `two catalog entries share the name '${name}'`, { name });
    names.add(name);
  }
}

/**
 * Everything a catalog and its calls show of a workflow is rendered from its inert copy
 * (untrusted.ts): the author's text cannot carry a client's preprocessing syntax, a line break
 * that ends a quote or a hidden character into what an agent reads.
 */
export function renderCatalog(workflows: readonly RenderableWorkflow[], adapter: Adapter): Catalog {
  const renderer = rendererFor(adapter);
  return assembled(
    adapter,
    workflows,
    workflows.map((w) => pieceOf(renderer, w)),
  );
}

/** renderCatalog workflow by workflow in slices (yielding.ts): a large deployment's first catalog does not hold the loop. */
async function renderCatalogInSlices(workflows: readonly RenderableWorkflow[], adapter: Adapter): Promise<Catalog> {
  const renderer = rendererFor(adapter);
  return assembled(adapter, workflows, await mapInSlices(workflows, (w) => pieceOf(renderer, w)));
}

interface CatalogPiece {
  tools: RenderedTool[];
  prompt: RenderedPrompt;
}

/** One workflow's tools and prompt. */
function pieceOf(renderer: AdapterRenderer, original: RenderableWorkflow): CatalogPiece {
  const workflow = inertWorkflow(original);
  const mode = renderer.modeOf(workflow.manifest);
  return { tools: [mainTool(workflow, renderer, mode), ...stepTools(workflow, renderer, mode)], prompt: prompt(workflow, renderer, mode) };
}

function assembled(adapter: Adapter, workflows: readonly RenderableWorkflow[], pieces: readonly CatalogPiece[]): Catalog {
  const catalog: Catalog = { adapter, tools: [], prompts: [] };
  for (const piece of pieces) {
    for (const tool of piece.tools) catalog.tools.push(tool);
    catalog.prompts.push(piece.prompt);
  }
  assertUnique(workflows, catalog);
  return catalog;
}

/** Catalogs kept by catalogFor; a deployment has one per adapter it is used with. */
const CATALOG_CACHE_SIZE = 1000;

interface CachedCatalog {
  catalog: Catalog;
  /** What each workflow showed beyond its id and version, TEXT_FIELDS a workflow in order, as the catalog was rendered with (textsOf). */
  texts: (string | boolean | null)[];
}

/** Keyed by the adapter and each workflow's id and version; names and descriptions are compared. */
const catalogs = new BoundedCache<string, CachedCatalog>('mcp_catalogs', CATALOG_CACHE_SIZE);

/** What a catalog shows of a workflow beyond its id and version: its name, description and provenance. */
const TEXT_FIELDS = 6;

function textsOf(workflow: RenderableWorkflow): (string | boolean | null)[] {
  const p = workflow.provenance;
  return [
    workflow.name,
    workflow.description,
    p?.authorDisplayName ?? null,
    p?.authorHandle ?? null,
    p?.digest ?? null,
    p?.thirdParty ?? null,
  ];
}

/** Whether the workflows show what `texts` recorded: compared field by field, as this runs on every request. */
function sameTexts(texts: (string | boolean | null)[], workflows: readonly RenderableWorkflow[]): boolean {
  for (let i = 0; i < workflows.length; i += 1) {
    const w = workflows[i]!;
    const p = w.provenance;
    const at = TEXT_FIELDS * i;
    if (texts[at] !== w.name || texts[at + 1] !== w.description) return false;
    if (texts[at + 2] !== (p?.authorDisplayName ?? null) || texts[at + 3] !== (p?.authorHandle ?? null)) return false;
    if (texts[at + 4] !== (p?.digest ?? null) || texts[at + 5] !== (p?.thirdParty ?? null)) return false;
  }
  return true;
}

/**
 * renderCatalog, remembered. A catalog depends only on the adapter and, for each workflow, its id,
 * version, name, description and provenance (its author's names and its digest): every change of a
 * manifest records a new version, and a version's manifest never changes. The cache key is the
 * adapter with the ids and versions (short, so a hit builds little); the rest is compared with the
 * cached one, and a catalog whose workflows were renamed, redescribed or whose author was renamed is
 * rendered again in place. The least recently used catalog is dropped beyond CATALOG_CACHE_SIZE
 * (the cache `mcp_catalogs`). The catalog returned is shared: callers only
 * read it.
 */
export async function catalogFor(workflows: readonly RenderableWorkflow[], adapter: Adapter): Promise<Catalog> {
  let key = adapter as string;
  for (const w of workflows) key += `\u0000${w.workflowId}\u0000${w.version}`;
  const known = catalogs.get(key, (cached) => sameTexts(cached.texts, workflows));
  if (known) return known.catalog;
  const catalog = await renderCatalogInSlices(workflows, adapter);
  catalogs.set(key, { catalog, texts: workflows.flatMap(textsOf) });
  return catalog;
}

/** The workflow of a catalog entry, inert (untrusted.ts). */
function workflowOf(workflows: readonly RenderableWorkflow[], workflowId: string): RenderableWorkflow {
  const workflow = workflows.find((w) => w.workflowId === workflowId);
  if (!workflow) throw notFound('workflow', workflowId);
  return inertWorkflow(workflow);
}

/** A plan as the agent reads it: the author's text between the provenance markers, inert as a whole. */
function markedPlan(workflow: RenderableWorkflow, lead: string[], text: string): string {
  return inertDocument([...lead, ...authorTextOpening(workflow), text.trimEnd(), ...authorTextClosing(workflow)].join('\n') + '\n');
}

export function callTool(catalog: Catalog, workflows: readonly RenderableWorkflow[], toolName: string, args: unknown): ToolCallResult {
  const tool = catalog.tools.find((t) => t.name === toolName);
  if (!tool) throw new AppError('VALIDATION_ERROR', `unknown tool '${toolName}'`, { tool: toolName });
  const valid = inertArgs(validateArgs<PlanArgs>(tool.inputSchema, args, `tool '${toolName}'`, { tool: toolName }));
  const workflow = workflowOf(workflows, tool.workflowId);
  const renderer = rendererFor(catalog.adapter);
  const input = buildPlanInput(workflow, catalog.adapter, renderer.modeOf(workflow.manifest), valid);
  let rendered;
  if (tool.stepId === null) {
    rendered = renderer.renderPlan(input);
  } else {
    if (!renderer.steps || !input.steps.some((s) => s.id === tool.stepId)) {
      throw notFound('step', tool.stepId);
    }
    rendered = renderer.steps.render(input, tool.stepId);
  }
  return { content: [{ type: 'text', text: markedPlan(workflow, [], rendered.text) }], structuredContent: rendered.structured };
}

export function getPrompt(catalog: Catalog, workflows: readonly RenderableWorkflow[], name: string, args: unknown): PromptResult {
  const found = catalog.prompts.find((p) => p.name === name);
  if (!found) throw new AppError('VALIDATION_ERROR', `unknown prompt '${name}'`, { prompt: name });
  const valid = inertArgs(validateArgs<PlanArgs>(promptInputSchema, args, `prompt '${name}'`, { prompt: name }));
  const workflow = workflowOf(workflows, found.workflowId);
  const renderer = rendererFor(catalog.adapter);
  const input = buildPlanInput(workflow, catalog.adapter, renderer.modeOf(workflow.manifest), valid);
  const { text } = renderer.renderPlan(input);
  const address = `Please run the workflow "${oneLine(workflow.name)}" for me. Follow the "How to run" list and take the steps in the dependency order given below.`;
  return {
    description: found.description,
    messages: [{ role: 'user', content: { type: 'text', text: markedPlan(workflow, [address, ''], text) } }],
  };
}
