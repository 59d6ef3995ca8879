/**
 * Nested objects in a safetensors file: what torch.save writes for an
 * object that is more than tensors by name (an optimizer's state dict, a
 * checkpoint of model, optimizer and epoch), and how torch.load rebuilds it.
 *
 * Each tensor is stored under the dotted path of where it sits
 * (`state.0.exp_avg`, `param_groups.0.params` would be a path too), so that
 * Python's `safetensors.torch.load_file` sees ordinary tensors by name. The
 * rest of the object goes to the header's `__metadata__` under
 * STRUCTURE_KEY as JSON, each tensor replaced by `{ "$tensor": key }`.
 * Values JSON cannot write are tagged the same way: `{ "$number": "NaN" }`
 * (also "Infinity", "-Infinity", "-0"), `{ "$bigint": "12" }`,
 * `{ "$undefined": true }`; a plain object whose only key starts with `$`
 * is wrapped as `{ "$object": {...} }` so that it is never read as a tag.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';

/** The `__metadata__` key under which torch.save keeps a nested object's structure. */
export const STRUCTURE_KEY = 'tsgpu.structure';

/** Version of the structure's encoding, written with it. */
const kVersion = 1;

/** What torch.save writes for an object: tensors by key, and the structure (null for tensors by name). */
export interface Flattened {
  tensors: [string, Tensor][];
  /** The JSON for STRUCTURE_KEY, or null when the object is a flat record of tensors (the keys are the names). */
  structure: string | null;
}

/** An object literal (or Object.create(null)), of this realm or another (a vm context's). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `obj.state[0].exp_avg`, as errors write a place in the saved object. */
function placeName(path: readonly string[]): string {
  let s = 'obj';
  for (const p of path) s += /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : /^\d+$/.test(p) ? `[${p}]` : `[${JSON.stringify(p)}]`;
  return s;
}

function describe(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  const name = (v as object).constructor?.name;
  return name ? `a ${name}` : 'an object with a prototype';
}

/**
 * Splits `obj` into its tensors and its structure. A plain object whose
 * every value is a Tensor is a flat record: its keys are the tensors' names
 * and no structure is written. Anything else is walked: plain objects,
 * arrays, tensors, strings, numbers, booleans, null, undefined and bigints;
 * other values (Maps, class instances, functions), cycles and two tensors
 * whose paths give the same key are errors naming the place.
 */
export function flatten(op: string, obj: unknown): Flattened {
  if (isPlainObject(obj) && Object.values(obj).every((v) => v instanceof Tensor)) {
    return { tensors: Object.entries(obj as Record<string, Tensor>), structure: null };
  }
  const tensors: [string, Tensor][] = [];
  const places = new Map<string, string>();
  const open = new Set<object>();
  const walk = (v: unknown, path: string[]): unknown => {
    if (v instanceof Tensor) {
      const key = path.join('.');
      const before = places.get(key);
      if (before !== undefined) {
        throw codedError('TSGPU_ARG', `${op}: two tensors would be saved under the key ${JSON.stringify(key)}: ${before} and ${placeName(path)}`);
      }
      places.set(key, placeName(path));
      tensors.push([key, v]);
      return { $tensor: key };
    }
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (Number.isNaN(v)) return { $number: 'NaN' };
        if (v === Infinity) return { $number: 'Infinity' };
        if (v === -Infinity) return { $number: '-Infinity' };
        if (Object.is(v, -0)) return { $number: '-0' };
        return v;
      case 'bigint':
        return { $bigint: v.toString() };
      case 'undefined':
        return { $undefined: true };
      default:
        break;
    }
    if (v === null) return null;
    const isArray = Array.isArray(v);
    if (!isArray && !isPlainObject(v)) {
      throw codedError(
        'TSGPU_ARG',
        `${op}: cannot save ${describe(v)} at ${placeName(path)}: expected tensors, numbers, strings, booleans, null, arrays and plain objects`,
      );
    }
    if (open.has(v as object)) throw codedError('TSGPU_ARG', `${op}: ${placeName(path)} refers back to an object that contains it (a cycle)`);
    open.add(v as object);
    let out: unknown;
    if (isArray) {
      const arr = v as unknown[];
      out = Array.from({ length: arr.length }, (_, i) => walk(arr[i], [...path, String(i)]));
    } else {
      const rec: Record<string, unknown> = {};
      const keys = Object.keys(v as object);
      for (const k of keys) setOwn(rec, k, walk((v as Record<string, unknown>)[k], [...path, k]));
      out = keys.length === 1 && keys[0].startsWith('$') ? { $object: rec } : rec;
    }
    open.delete(v as object);
    return out;
  };
  const root = walk(obj, []);
  return { tensors, structure: JSON.stringify({ version: kVersion, root }) };
}

/** The error of a structure that cannot be rebuilt (code TSGPU_SAFETENSORS). */
type FormatError = (what: string) => Error;

/**
 * Checks a structure read from a file against the tensors it has, before
 * any tensor is allocated: every tag well formed, every `$tensor` key one of
 * `names`, and every tensor of the file used. Returns the decoded root.
 */
export function checkStructure(json: string, names: ReadonlySet<string>, fail: FormatError): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw fail(`its ${STRUCTURE_KEY} metadata is not valid JSON (${(e as Error).message})`);
  }
  if (!isPlainObject(parsed) || parsed.version !== kVersion || !('root' in parsed)) {
    throw fail(`its ${STRUCTURE_KEY} metadata is not a structure of version ${kVersion} written by torch.save`);
  }
  const used = new Set<string>();
  const visit = (v: unknown, place: string): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => visit(x, `${place}[${i}]`));
      return;
    }
    if (!isPlainObject(v)) return;
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0].startsWith('$')) {
      const tag = keys[0];
      const val = v[tag];
      const ok =
        tag === '$tensor'
          ? typeof val === 'string' && names.has(val)
          : tag === '$number'
            ? val === 'NaN' || val === 'Infinity' || val === '-Infinity' || val === '-0'
            : tag === '$bigint'
              ? typeof val === 'string' && /^-?\d+$/.test(val)
              : tag === '$undefined'
                ? val === true
                : tag === '$object' && isPlainObject(val);
      if (!ok) {
        const what = tag === '$tensor' && typeof val === 'string' ? `the tensor ${JSON.stringify(val)}, which the file does not have` : `${JSON.stringify(v)}, which is not a value torch.save writes`;
        throw fail(`its ${STRUCTURE_KEY} metadata refers at ${place} to ${what}`);
      }
      if (tag === '$tensor') used.add(val as string);
      if (tag === '$object') for (const k of Object.keys(val as object)) visit((val as Record<string, unknown>)[k], `${place}.${k}`);
      return;
    }
    for (const k of keys) visit(v[k], `${place}.${k}`);
  };
  visit(parsed.root, 'obj');
  for (const n of names) {
    if (!used.has(n)) throw fail(`tensor ${JSON.stringify(n)} is in the file but not in its ${STRUCTURE_KEY} metadata`);
  }
  return parsed.root;
}

/** The saved object, from a checked structure's root and the loaded tensors. */
export function rebuild(root: unknown, tensors: ReadonlyMap<string, Tensor>): unknown {
  const build = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(build);
    if (!isPlainObject(v)) return v;
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0].startsWith('$')) {
      const val = v[keys[0]];
      switch (keys[0]) {
        case '$tensor':
          return tensors.get(val as string);
        case '$number':
          return val === '-0' ? -0 : Number(val);
        case '$bigint':
          return BigInt(val as string);
        case '$undefined':
          return undefined;
        default:
          v = val; // $object
      }
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object)) setOwn(out, k, build((v as Record<string, unknown>)[k]));
    return out;
  };
  return build(root);
}
