import {
  GraphQLError,
  Kind,
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

function walk(
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  visit: (depth: number, multiplier: number, node: SelectionSetNode['selections'][number]) => number,
  depth: number,
  multiplier: number,
  seen: Set<string>,
): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      const childMultiplier = visit(depth, multiplier, sel);
      if (sel.selectionSet) walk(sel.selectionSet, fragments, visit, depth + 1, childMultiplier, seen);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      walk(sel.selectionSet, fragments, visit, depth, multiplier, seen);
    } else {
      const frag = fragments[sel.name.value];
      if (frag && !seen.has(frag.name.value)) walk(frag.selectionSet, fragments, visit, depth, multiplier, new Set([...seen, frag.name.value]));
    }
  }
}

function pageSizeOf(node: FieldNode): number | null {
  for (const arg of node.arguments ?? []) {
    if (['first', 'last', 'limit'].includes(arg.name.value) && arg.value.kind === Kind.INT) return Number(arg.value.value);
  }
  return null;
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
        walk(
          op.selectionSet,
          fragments,
          (depth, multiplier, node) => {
            if (node.kind !== Kind.FIELD) return multiplier;
            maxDepth = Math.max(maxDepth, depth + 1);
            if (node.alias) aliases += 1;
            cost += multiplier;
            const size = pageSizeOf(node);
            const isList = size !== null || (node.selectionSet !== undefined && /s$|^data$|^edges$|library|versions|reviews/.test(node.name.value));
            return isList ? multiplier * (size ?? DEFAULT_LIST_SIZE) : multiplier;
          },
          0,
          1,
          new Set(),
        );
        if (maxDepth > limits.maxDepth) context.reportError(limitError(`the operation nests ${maxDepth} levels deep; at most ${limits.maxDepth} are allowed`, 'depth'));
        if (aliases > limits.maxAliases) context.reportError(limitError(`the operation uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, 'aliases'));
        if (cost > limits.maxCost) context.reportError(limitError(`the operation's estimated cost is ${cost}; at most ${limits.maxCost} is allowed (ask for smaller pages)`, 'cost'));
      },
    };
  };
}
