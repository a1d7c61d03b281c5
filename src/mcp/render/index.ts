/**
 * What the tool endpoint and the services use of rendering: the catalog (catalog.ts), one renderer
 * per adapter (renderers.ts) and Agent Skills (skill.ts).
 */
export { callTool, catalogFor, getPrompt, renderCatalog } from './catalog.js';
export type { Catalog, RenderableWorkflow, RenderedTool } from './types.js';
export { NAME_PATTERN } from './names.js';
export { parseSkillAdapter, renderSkill, skillName } from './skill.js';
export { inertWorkflow, markedInline, namingName } from './untrusted.js';
export { mapInSlices } from './yielding.js';
