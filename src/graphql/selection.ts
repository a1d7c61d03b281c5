import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the operation may ask for the field `name` at `path` below the field being resolved
 * (`['data']` for the items of a page), through fragments too. Directives are not evaluated: a
 * field under `@skip` or `@include` counts as asked, so a caller that reads less when a field is
 * not asked never reads too little.
 */
export function mayAskFor(info: GraphQLResolveInfo, path: readonly string[], name: string): boolean {
  function search(set: SelectionSetNode, depth: number): boolean {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = selection.name.value;
        if (depth === path.length) {
          if (field === name) return true;
        } else if (field === path[depth] && selection.selectionSet && search(selection.selectionSet, depth + 1)) {
          return true;
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (search(selection.selectionSet, depth)) return true;
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment && search(fragment.selectionSet, depth)) return true;
      }
    }
    return false;
  }
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && search(node.selectionSet, 0));
}
