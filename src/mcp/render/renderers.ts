/** The renderer of each adapter. */
import { AppError } from '../../errors.js';
import { ADAPTERS, isAdapter, type Adapter } from '../../manifest/adapter-list.js';
import { adapterOne } from './adapter-one.js';
import { adapterThree } from './adapter-three.js';
import { adapterTwo } from './adapter-two.js';
import type { AdapterRenderer } from './types.js';

const RENDERERS: Record<Adapter, AdapterRenderer> = {
  adapter_one: adapterOne,
  adapter_two: adapterTwo,
  adapter_three: adapterThree,
};

export function rendererFor(adapter: Adapter): AdapterRenderer {
  // The adapter comes from the connecting client at run time, whatever the type says.
  if (!isAdapter(adapter)) {
    throw new AppError('VALIDATION_ERROR', `unknown adapter '${String(adapter)}'`, { adapter, allowed: [...ADAPTERS] });
  }
  return RENDERERS[adapter];
}
