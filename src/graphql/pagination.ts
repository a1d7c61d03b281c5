import type { ObjectRef } from '@pothos/core';
import type { Page } from '../pagination.js';
import { builder, PaginationRef } from './builder.js';

/** A page type `{ data: [Item!]!, pagination: Pagination! }` for a list field. */

export function pageRef<T>(name: string, item: ObjectRef<any, T, any>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      data: t.field({ type: [item], resolve: (page) => page.data as never }),
      pagination: t.field({ type: PaginationRef, resolve: (page) => page.pagination }),
    }),
  });
}
