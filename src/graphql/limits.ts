import {
  getNamedType,
  GraphQLError,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * Limits on GraphQL operations, checked during validation, before any resolver (and so any
 * database work) runs: how deep a selection nests, how many aliases it uses, and an estimated
 * cost in which a list field multiplies the cost of what it selects by its page size.
 */
export interface OperationLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

export const defaultOperationLimits: OperationLimits = { maxDepth: 10, maxAliases: 30, maxCost: 20_000 };

const DEFAULT_LIST_SIZE = 20;

function limitError(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'VALIDATION_ERROR', details: { limit: code } } });
}

function pageSizeOf(node: FieldNode): number | null {
  for (const arg of node.arguments ?? []) {
    if (['first', 'last', 'limit'].includes(arg.name.value) && arg.value.kind === Kind.INT) return Number(arg.value.value);
  }
  return null;
}

interface Visit {
  depth: number;
  multiplier: number;
  field: FieldNode;
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
  depth: number,
  multiplier: number,
  pageSize: number | null,
  seen: Set<string>,
): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const fieldDef = parent && isObjectType(parent) ? parent.getFields()[sel.name.value] : undefined;
      const type = fieldDef?.type ?? null;
      const childMultiplier = visit({ depth, multiplier, field: sel }, type, pageSize);
      if (sel.selectionSet) {
        const ownSize = pageSizeOf(sel);
        walk(schema, type ? getNamedType(type) : null, sel.selectionSet, fragments, visit, depth + 1, childMultiplier, ownSize ?? null, seen);
      }
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const cond = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
      walk(schema, cond, sel.selectionSet, fragments, visit, depth, multiplier, pageSize, seen);
    } else {
      const frag = fragments[sel.name.value];
      if (frag && !seen.has(frag.name.value)) {
        walk(schema, schema.getType(frag.typeCondition.name.value), frag.selectionSet, fragments, visit, depth, multiplier, pageSize, new Set([...seen, frag.name.value]));
      }
    }
  }
}

export function operationLimitRule(limits: OperationLimits = defaultOperationLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
    return {
      OperationDefinition(op) {
        let maxDepth = 0;
        let aliases = 0;
        let cost = 0;
        const schema = context.getSchema();
        const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
        walk(
          schema,
          root,
          op.selectionSet,
          fragments,
          ({ depth, multiplier, field }, type, pageSize) => {
            maxDepth = Math.max(maxDepth, depth + 1);
            if (field.alias) aliases += 1;
            cost += multiplier;
            // A list multiplies what it selects by its page size: its own limit argument, the
            // limit of the page it belongs to, or a default.
            const listed = type !== null && isListType(isNonNullType(type) ? type.ofType : type) && field.selectionSet !== undefined;
            return listed ? multiplier * (pageSizeOf(field) ?? pageSize ?? DEFAULT_LIST_SIZE) : multiplier;
          },
          0,
          1,
          null,
          new Set(),
        );
        if (maxDepth > limits.maxDepth) context.reportError(limitError(`the operation nests ${maxDepth} levels deep; at most ${limits.maxDepth} are allowed`, 'depth'));
        if (aliases > limits.maxAliases) context.reportError(limitError(`the operation uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, 'aliases'));
        if (cost > limits.maxCost) context.reportError(limitError(`the operation's estimated cost is ${cost}; at most ${limits.maxCost} is allowed (ask for smaller pages)`, 'cost'));
      },
    };
  };
}
