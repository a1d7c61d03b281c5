import type { Page } from '../pagination.js';
import { builder, PaginationRef } from './builder.js';

/** A page type `{ data: [Item!]!, pagination: Pagination! }` for a list field. */
export function pageRef<T>(name: string, item: Parameters<typeof builder.objectRef<T>>[0] | ReturnType<typeof builder.objectRef<T>>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      data: t.field({ type: [item as ReturnType<typeof builder.objectRef<T>>], resolve: (page) => page.data }),
      pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
    }),
  });
}
