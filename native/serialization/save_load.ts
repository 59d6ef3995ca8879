/**
 * torch.save and torch.load, in the safetensors format (files that Python's
 * `safetensors.torch.load_file` reads, and that it writes).
 *
 * - A module's state dict (tensors by name) is written with exactly its
 *   keys (`blocks.0.attn.qkv.bias`), in its order, and `{"format": "pt"}` as
 *   metadata, as Hugging Face's writers do; it loads back as tensors by name.
 * - Any other object (an optimizer's state dict, a checkpoint) is written
 *   with each tensor under its dotted path (`state.0.exp_avg`) and the rest
 *   of the object kept in the metadata (structure.ts); torch.load rebuilds
 *   the same object. A file written elsewhere without that metadata loads
 *   as tensors by name.
 *
 * What a safetensors file cannot hold: tensors that share memory. Every key
 * is saved as its own values (a view as what it shows, a tensor tied to
 * another in full), and loading gives separate tensors. Loading a state dict
 * into a module with tied weights (GPT-2's `wte.weight` and `lm_head.weight`)
 * keeps them tied, since loadStateDict copies the values into the module's
 * own parameters. (PyTorch's pickle-based torch.save keeps the sharing, and
 * safetensors' Python save_file refuses such tensors.)
 */
import { Tensor } from '../tensor';
import { formatError } from './format';
import { checkPath, LoadOptions, loadDevice, openFile, readTensors, writeTensors } from './io';
import { checkStructure, flatten, rebuild, STRUCTURE_KEY } from './structure';

/**
 * Saves `obj` to the file `f` in the safetensors format (torch.save): tensors
 * by name (a state dict) under exactly their keys; any other object of
 * tensors, numbers, strings, booleans, null, arrays and plain objects with
 * its tensors under their dotted paths and the rest in the metadata, for
 * torch.load to rebuild. CUDA tensors are copied to the host as they are
 * written; views are saved as their values. An earlier file at `f` is
 * replaced only once the new one is complete.
 *
 * @example torch.save(model.stateDict(), 'model.safetensors')
 */
export function save(obj: unknown, f: string | URL): void {
  const op = 'torch.save';
  const file = checkPath(op, f);
  const { tensors, structure } = flatten(op, obj);
  writeTensors(op, file, tensors, structure === null ? { format: 'pt' } : { format: 'pt', [STRUCTURE_KEY]: structure });
}

/**
 * Loads what torch.save wrote (or any safetensors file) from `f`, its
 * tensors on `device` (default "cpu"; `mapLocation` is accepted as PyTorch's
 * name for it): the same object for a file torch.save wrote, else tensors by
 * name in the order of their data. A truncated, corrupt or oversized file
 * throws one error (code TSGPU_SAFETENSORS) that names the file and what is
 * wrong, before anything is allocated; a failure while reading the data
 * (out of memory on the device) frees what was already loaded.
 *
 * @example model.loadStateDict(torch.load('model.safetensors', { device: 'cuda' }))
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function load<T = any>(f: string | URL, opts?: LoadOptions): T {
  const op = 'torch.load';
  const file = checkPath(op, f);
  const device = loadDevice(op, opts);
  const opened = openFile(op, file);
  try {
    const { header } = opened;
    const json = header.metadata?.[STRUCTURE_KEY];
    const names = new Set(header.tensors.map((e) => e.name));
    const root = json === undefined ? null : checkStructure(json, names, (what) => formatError(file, what));
    const tensors = readTensors(opened, file, device);
    if (json === undefined) {
      const out: Record<string, Tensor> = {};
      for (const [k, t] of tensors) Object.defineProperty(out, k, { value: t, enumerable: true, writable: true, configurable: true });
      return out as T;
    }
    return rebuild(root, tensors) as T;
  } finally {
    opened.close();
  }
}
