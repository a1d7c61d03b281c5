import {
  getNamedType,
  GraphQLError,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { toGraphQLError } from './errors.js';
import { MANIFEST_LIMITS } from '../manifest/limits.js';

/**
 * Limits on GraphQL operations, all checked before any resolver (and so any database work) runs:
 * how deep a selection nests and how many aliases it uses (validation, from the document alone),
 * and an estimated cost (at execution start, when the variables are known) in which a list field
 * multiplies the cost of what it selects by its page size, and a field that carries a manifest
 * weighs as much as the largest manifest the service stores.
 */
export interface OperationLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

const defaultOperationLimits: OperationLimits = { maxDepth: 10, maxAliases: 30, maxCost: 20_000 };

/** The page size assumed for a list without a usable `limit` (the services' default page). */
const DEFAULT_LIST_SIZE = 20;

/**
 * The weight of a field that returns a whole manifest: one unit per 512 bytes of the largest
 * manifest accepted (512 for 256 KiB), so the cost bound is also a bound on the manifest bytes one
 * answer can hold: 20,000 units are at most 39 manifests, about 10 MiB.
 */
const MANIFEST_FIELD_WEIGHT = Math.ceil(MANIFEST_LIMITS.maxBytes / 512);

/**
 * The weight of a field that reads a manifest sent to it (its `manifest` argument: validating,
 * creating or updating a workflow). Reading a YAML text of the largest size holds the event loop
 * far longer than writing the same manifest as JSON (docs/operations.md, "One request cannot stall
 * the service"), so it weighs 32 times as much: one such field fits in an operation, two do not.
 */
const MANIFEST_ARGUMENT_WEIGHT = 32 * MANIFEST_FIELD_WEIGHT;

function fieldWeight(parent: GraphQLNamedType | null | undefined, field: FieldNode): number {
  const reads = field.arguments?.some((arg) => arg.name.value === 'manifest') ? MANIFEST_ARGUMENT_WEIGHT : 0;
  const name = field.name.value;
  if (name === 'manifest' || name === 'manifestSource' || (parent?.name === 'ManifestDocument' && name === 'body'))
    return MANIFEST_FIELD_WEIGHT + reads;
  return 1 + reads;
}

function limitError(message: string, code: string): GraphQLError {
  return toGraphQLError({ code: 'VALIDATION_ERROR', message, details: { limit: code }, status: 400 });
}

const PAGE_ARGUMENTS = new Set(['first', 'last', 'limit']);

/**
 * The page size a field asks for: its `limit` (or `first`/`last`) argument, written literally or
 * passed as a variable; null when it has none or its value is not a number (the field's own
 * argument check then refuses it, or the default page applies).
 */
function pageSizeOf(node: FieldNode, variables: Readonly<Record<string, unknown>>): number | null {
  for (const arg of node.arguments ?? []) {
    if (!PAGE_ARGUMENTS.has(arg.name.value)) continue;
    const value = valueFromASTUntyped(arg.value, variables);
    return typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.ceil(value)) : null;
  }
  return null;
}

interface Visit {
  depth: number;
  multiplier: number;
  field: FieldNode;
  parent: GraphQLNamedType | null | undefined;
}

/**
 * Walks the selections with the schema's types: `visit` returns the multiplier for the
 * field's children. Fragments are followed once per path.
 */
function walk(
  schema: GraphQLSchema,
  parent: GraphQLNamedType | null | undefined,
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  visit: (v: Visit, type: GraphQLOutputType | null, pageSize: number | null) => number,
  pageSizeOfField: (node: FieldNode) => number | null,
  depth: number,
  multiplier: number,
  pageSize: number | null,
  seen: ReadonlySet<string>,
): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const fieldDef = parent && isObjectType(parent) ? parent.getFields()[sel.name.value] : undefined;
      const type = fieldDef?.type ?? null;
      const childMultiplier = visit({ depth, multiplier, field: sel, parent }, type, pageSize);
      if (sel.selectionSet) {
        walk(
          schema,
          type ? getNamedType(type) : null,
          sel.selectionSet,
          fragments,
          visit,
          pageSizeOfField,
          depth + 1,
          childMultiplier,
          pageSizeOfField(sel),
          seen,
        );
      }
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const cond = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
      walk(schema, cond, sel.selectionSet, fragments, visit, pageSizeOfField, depth, multiplier, pageSize, seen);
    } else {
      const frag = fragments[sel.name.value];
      if (frag && !seen.has(frag.name.value)) {
        walk(
          schema,
          schema.getType(frag.typeCondition.name.value),
          frag.selectionSet,
          fragments,
          visit,
          pageSizeOfField,
          depth,
          multiplier,
          pageSize,
          new Set([...seen, frag.name.value]),
        );
      }
    }
  }
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  return fragments;
}

function rootTypeOf(schema: GraphQLSchema, op: OperationDefinitionNode) {
  return op.operation === 'mutation'
    ? schema.getMutationType()
    : op.operation === 'subscription'
      ? schema.getSubscriptionType()
      : schema.getQueryType();
}

/**
 * The depth an operation that asks only for the schema may reach: GraphiQL's own introspection
 * query nests 15 levels (`ofType` inside `ofType`). Such an operation reads the schema held in
 * memory, never the database, and graphql-js's MaxIntrospectionDepthRule (added beside this rule)
 * refuses the nesting of `fields`, `interfaces` and `possibleTypes` that would make it expensive.
 */
const INTROSPECTION_MAX_DEPTH = 20;
const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/** Whether every field the operation selects at its root (through fragments too) is an introspection field. */
function asksOnlyForTheSchema(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): boolean {
  return selectionSet.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return asksOnlyForTheSchema(selection.selectionSet, fragments, seen);
    const name = selection.name.value;
    const fragment = fragments[name];
    if (!fragment || seen.has(name)) return true;
    seen.add(name);
    return asksOnlyForTheSchema(fragment.selectionSet, fragments, seen);
  });
}

/** Depth and aliases depend on the document only, so they are checked with the other validation rules. */
export function operationLimitRule(limits: OperationLimits = defaultOperationLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(op) {
        let maxDepth = 0;
        let aliases = 0;
        const schema = context.getSchema();
        walk(
          schema,
          rootTypeOf(schema, op),
          op.selectionSet,
          fragments,
          ({ depth, multiplier, field }) => {
            maxDepth = Math.max(maxDepth, depth + 1);
            if (field.alias) aliases += 1;
            return multiplier;
          },
          () => null,
          0,
          1,
          null,
          new Set(),
        );
        const allowedDepth = asksOnlyForTheSchema(op.selectionSet, fragments) ? INTROSPECTION_MAX_DEPTH : limits.maxDepth;
        if (maxDepth > allowedDepth)
          context.reportError(limitError(`the operation nests ${maxDepth} levels deep; at most ${allowedDepth} are allowed`, 'depth'));
        if (aliases > limits.maxAliases)
          context.reportError(limitError(`the operation uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, 'aliases'));
      },
    };
  };
}

export interface OperationMeasure {
  /** The estimated cost (see the module comment). */
  cost: number;
  /** Fields selected at the root, `__typename` aside: what the request costs in rate-limit units. */
  rootFields: number;
}

/**
 * Measures the operation that will run, with its variables. The document has passed validation,
 * so the operation exists and its variables have their declared types; a variable the request
 * left out takes the default its definition gives.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Readonly<Record<string, unknown>> | null | undefined,
): OperationMeasure {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const op = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!op) return { cost: 0, rootFields: 1 };
  const variables: Record<string, unknown> = {};
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const given = variableValues?.[name];
    variables[name] = given !== undefined ? given : def.defaultValue ? valueFromASTUntyped(def.defaultValue) : undefined;
  }
  let cost = 0;
  let rootFields = 0;
  walk(
    schema,
    rootTypeOf(schema, op),
    op.selectionSet,
    fragmentsOf(document),
    ({ depth, multiplier, field, parent }, type, pageSize) => {
      if (depth === 0 && field.name.value !== '__typename') rootFields += 1;
      cost += multiplier * fieldWeight(parent, field);
      // A list multiplies what it selects by its page size: its own limit argument, the
      // limit of the page it belongs to, or the default page.
      const listed = type !== null && isListType(isNonNullType(type) ? type.ofType : type) && field.selectionSet !== undefined;
      return listed ? multiplier * (pageSizeOf(field, variables) ?? pageSize ?? DEFAULT_LIST_SIZE) : multiplier;
    },
    (node) => pageSizeOf(node, variables),
    0,
    1,
    null,
    new Set(),
  );
  return { cost, rootFields: Math.max(rootFields, 1) };
}

/** The refusal of an operation whose estimated cost is over the limit, or null. */
export function costRefusal(measure: OperationMeasure, limits: OperationLimits = defaultOperationLimits): GraphQLError | null {
  if (measure.cost <= limits.maxCost) return null;
  return limitError(
    `the operation's estimated cost is ${measure.cost}; at most ${limits.maxCost} is allowed (ask for smaller pages or fewer manifests)`,
    'cost',
  );
}
