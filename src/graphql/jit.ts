import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, type DocumentNode, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * graphql-jit as the executor of the GraphQL pipeline, for /graphql and the REST routes alike: an
 * operation is compiled to JavaScript once (on its document's first execution) and the compiled
 * function runs it from then on; the resolvers, and so every rule and check, are the same.
 *
 * The plugin keeps one compilation per document object (parsed documents are cached, so the
 * same text is the same object), and it keeps a refused compilation too: a document graphql-jit
 * refuses is answered with the refusal from then on, never compiled again.
 *
 * That cache is keyed by the document alone, while a compilation is of one operation of it. So
 * graphql-jit runs only documents whose operation the request cannot choose: one operation, and
 * either no operation name or that operation's. Any other document (several operations, or a name
 * it does not have) runs on graphql-js, which chooses the operation on every request.
 */
export function selectsItsOnlyOperation(document: DocumentNode, operationName: string | null | undefined): boolean {
  let operation: { name?: { value: string } } | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operation) return false;
    operation = definition;
  }
  return operation !== undefined && (operationName == null || operation.name?.value === operationName);
}

export interface JitOptions {
  /** Told each time graphql-jit refuses a document, with its reasons (once per document). */
  onRefused: (errors: readonly GraphQLError[]) => void;
}

export function useJit(options: JitOptions): Plugin {
  return useGraphQlJit(
    {},
    {
      enableIf: (args) => selectsItsOnlyOperation(args.document, args.operationName),
      onError: (refusal) => options.onRefused(refusal.errors ?? []),
    },
  ) as Plugin;
}
