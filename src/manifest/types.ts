/**
 * The workflow manifest, version 1.0 (spec 2.8). These types describe a manifest
 * that has passed validation; `validate.ts` is the only way to obtain one from input.
 */

export const MANIFEST_VERSION = '1.0';

import type { Adapter } from './adapter-list.js';

export { ADAPTERS, type Adapter } from './adapter-list.js';

export const STEP_ACTIONS = [
  'code_agent',
  'research_agent',
  'planning_agent',
  'review_agent',
  'test_agent',
  'docs_agent',
  'custom_agent',
  'github_integration',
  'slack_integration',
  'notion_integration',
  'jira_integration',
  'linear_integration',
  'database_integration',
  'api_integration',
  'webhook_integration',
  'file_read',
  'file_write',
  'shell_execute',
  'search_codebase',
  'condition',
  'loop',
  'parallel',
  'human_input',
  'analyze_code',
  'edit_file',
  'edit_files',
  'generate_code',
  'generate_tests',
  'execute_command',
  'search_references',
  'design_architecture',
  'review_and_commit',
] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

export const OUTPUT_TYPES = ['code', 'analysis', 'documentation', 'mixed'] as const;
type OutputType = (typeof OUTPUT_TYPES)[number];

export const STEP_ID_PATTERN = /^[a-z][a-z0-9_]*$/;

interface StepRetry {
  max_attempts?: number;
  backoff?: string;
}

export interface WorkflowStep {
  id: string;
  name: string;
  action: StepAction;
  agent?: string;
  depends_on?: string[];
  parameters?: Record<string, unknown>;
  condition?: string;
  retry?: StepRetry;
}

export interface ManifestContext {
  repo?: string;
  language?: string;
  framework?: string;
  test_framework?: string;
  [key: string]: unknown;
}

interface ManifestOutputs {
  type?: OutputType;
  expected_files?: string[];
  schema?: Record<string, unknown>;
}

interface AdapterOneConfig {
  mode?: 'sub_agent' | 'direct';
  config?: {
    spawn_agents_per_step?: boolean;
    max_parallel_agents?: number;
    tools_per_step?: Record<string, string[]>;
  };
}

interface AdapterTwoConfig {
  mode?: 'composer' | 'direct' | 'parallel';
  config?: {
    use_composer?: boolean;
    show_diff?: boolean;
    auto_apply?: boolean;
  };
}

interface AdapterThreeConfig {
  mode?: 'function_calling' | 'direct';
  config?: {
    functions_per_step?: Record<string, string[]>;
  };
}

/** The settings each adapter takes in a manifest; an adapter of the list missing here fails to compile. */
interface AdapterSettings {
  adapter_one: AdapterOneConfig;
  adapter_two: AdapterTwoConfig;
  adapter_three: AdapterThreeConfig;
}

export type ManifestAdapters = { [A in Adapter]?: AdapterSettings[A] };

export interface WorkflowManifest {
  $schema?: string;
  manifest_version: typeof MANIFEST_VERSION;
  name: string;
  intent: string;
  context?: ManifestContext;
  steps: WorkflowStep[];
  outputs?: ManifestOutputs;
  adapters?: ManifestAdapters;
}

/** One problem found in a manifest. `path` is a JSON Pointer into the manifest ('' is the root). */
export interface ManifestError {
  path: string;
  code: ManifestErrorCode;
  message: string;
}

/**
 * The builder's kinds of validation message (spec 2.8), plus the kinds the schema and
 * the semantic checks add.
 */
export type ManifestErrorCode =
  | 'invalid_step_id'
  | 'circular_dependency'
  | 'missing_required_field'
  | 'unknown_action'
  | 'duplicate_step_id'
  | 'unknown_dependency'
  | 'unknown_step_reference'
  | 'unsupported_manifest_version'
  | 'invalid_type'
  | 'invalid_value'
  | 'unknown_property'
  | 'too_large';
