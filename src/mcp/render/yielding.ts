/**
 * Rendering that leaves room for other requests. A deployment's catalog, skills and plugin archive
 * are rendered workflow by workflow; a large deployment (up to 100 workflows of 200 steps each)
 * would hold the event loop for seconds if rendered in one go. These helpers hand the loop back
 * whenever a slice of work has run for SLICE_MS, so no request waits longer than a slice for it
 * (docs/operations.md, "One request cannot stall the service").
 */

/** The longest stretch of rendering before other work gets the loop. */
const SLICE_MS = 20;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `render` applied to each item in order, giving the loop back between items after each slice. */
export async function mapInSlices<T, R>(items: readonly T[], render: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i += 1) {
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    out.push(render(items[i]!, i));
  }
  return out;
}
