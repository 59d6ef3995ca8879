/**
 * Printing tensors as PyTorch prints them:
 *   tensor([[ 0.1234, -1.0000],
 *           [ 2.5000,  3.0000]], device='cuda:0', dtype=torch.bfloat16)
 * with PyTorch's print options (precision 4, threshold 1000, edgeitems 3,
 * linewidth 80) and its choice of fixed, integer-valued or scientific
 * notation. Big tensors are summarized with `...`; only the printed
 * elements are copied to the host, and printing allocates no tensor memory
 * for a summarized or contiguous tensor.
 */
import { native } from '../addon';
import { bfloat16ToNumber, DType, dtypeSize, getDefaultDtype, halfToNumber, hostArray } from '../dtype';
import { formatShape, Tensor } from '../tensor';

/** PyTorch's print options (torch.set_printoptions). */
export interface PrintOptions {
  /** Digits after the decimal point (default 4). */
  precision: number;
  /** Elements above which a tensor is summarized (default 1000). */
  threshold: number;
  /** Items shown at each end of a summarized dimension (default 3). */
  edgeitems: number;
  /** Characters per line (default 80). */
  linewidth: number;
  /** Force scientific notation on (true) or off (false); null chooses (default). */
  sciMode: boolean | null;
}

/** torch.set_printoptions' profiles. */
const kProfiles: Record<string, Omit<PrintOptions, 'sciMode'>> = {
  default: { precision: 4, threshold: 1000, edgeitems: 3, linewidth: 80 },
  short: { precision: 2, threshold: 1000, edgeitems: 2, linewidth: 80 },
  full: { precision: 4, threshold: Infinity, edgeitems: 3, linewidth: 80 },
};

const opts: PrintOptions = { ...kProfiles.default, sciMode: null };

/** What setPrintOptions takes: options, and a profile applied before them. */
export interface PrintOptionsUpdate extends Partial<PrintOptions> {
  /** Sets precision, threshold, edgeitems and linewidth to a profile's (applied first). */
  profile?: 'default' | 'short' | 'full';
}

/**
 * Changes print options as torch.set_printoptions does: the profile first,
 * then each option given; the others keep their value, except sciMode,
 * which every call sets (to automatic when not given), as in PyTorch.
 */
export function setPrintOptions(o: PrintOptionsUpdate = {}): void {
  const { profile, sciMode, ...rest } = o;
  const checks: [keyof typeof rest, number | undefined, boolean][] = [
    ['precision', rest.precision, Number.isInteger(rest.precision) && rest.precision! >= 0],
    ['threshold', rest.threshold, rest.threshold! >= 0],
    ['edgeitems', rest.edgeitems, Number.isInteger(rest.edgeitems) && rest.edgeitems! >= 0],
    ['linewidth', rest.linewidth, Number.isInteger(rest.linewidth) && rest.linewidth! > 0],
  ];
  for (const [name, v, ok] of checks) {
    if (v !== undefined && v !== null && !ok) {
      const what = name === 'threshold' ? 'a non-negative number' : name === 'linewidth' ? 'a positive integer' : 'a non-negative integer';
      throw new TypeError(`setPrintOptions: expected ${what} for ${name}, got ${typeof v === 'number' ? String(v) : JSON.stringify(v) ?? String(v)}`);
    }
  }
  if (sciMode !== undefined && sciMode !== null && typeof sciMode !== 'boolean') {
    throw new TypeError(`setPrintOptions: expected true, false or null for sciMode, got ${JSON.stringify(sciMode)}`);
  }
  if (profile !== undefined && profile !== null) {
    if (!Object.prototype.hasOwnProperty.call(kProfiles, profile)) {
      throw new TypeError(`setPrintOptions: expected 'default', 'short' or 'full' for profile, got ${JSON.stringify(profile)}`);
    }
    Object.assign(opts, kProfiles[profile]);
  }
  for (const [name, v] of Object.entries(rest) as [keyof typeof rest, number | undefined][]) {
    if (v !== undefined && v !== null && name in kProfiles.default) opts[name] = v;
  }
  opts.sciMode = sciMode ?? null;
}

/** The current print options. */
export function getPrintOptions(): PrintOptions {
  return { ...opts };
}

/**
 * JavaScript rounds a tie away from zero ((1.40625).toFixed(4) is 1.4063);
 * Python's format rounds the exact binary value half to even (1.4062).
 * `wide` is the digits with 25 more places than `rounded`: when those read
 * 5000…, the value is a tie, and the even result is the truncated text if
 * its last digit is even, else the rounded one.
 */
function halfEven(rounded: string, wide: string): string {
  if (!/^50*$/.test(wide.slice(-25))) return rounded;
  const truncated = wide.slice(0, -25).replace(/\.$/, '');
  return Number(truncated[truncated.length - 1]) % 2 === 0 ? truncated : rounded;
}

/** Python's "{:.Ne}": half-even, two-digit exponent at least. */
function sci(v: number, precision: number): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  if (Object.is(v, -0)) return `-${sci(0, precision)}`;  // Python keeps the sign of -0.0
  let s = v.toExponential(precision);
  const wide = v.toExponential(precision + 25);
  const e = wide.indexOf('e');
  const even = halfEven(s.slice(0, s.indexOf('e')), wide.slice(0, e));
  if (even !== s.slice(0, s.indexOf('e'))) s = even + wide.slice(e);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Python's "{:.Nf}" (half-even on the exact value). */
function fixed(v: number, digits: number): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  if (Object.is(v, -0)) return `-${(0).toFixed(digits)}`;  // Python keeps the sign of -0.0
  const rounded = v.toFixed(digits);
  if (Math.abs(v) >= 1e21 || digits + 25 > 100) return rounded;
  return halfEven(rounded, v.toFixed(digits + 25));
}

function nonFinite(v: number): string {
  return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}


class Formatter {
  private intMode = true;
  private sciMode = false;
  private maxWidth = 1;

  constructor(
    private readonly floating: boolean,
    private readonly isBool: boolean,
    values: readonly number[],
  ) {
    if (!floating) {
      for (const v of values) this.maxWidth = Math.max(this.maxWidth, this.plain(v).length);
      return;
    }
    const finite = values.filter((v) => Number.isFinite(v) && v !== 0);
    if (finite.length === 0) return;  // zeros and non-finite numbers only: fixed notation, whatever sciMode says
    const abs = finite.map(Math.abs);
    const min = Math.min(...abs);
    const max = Math.max(...abs);
    this.intMode = finite.every((v) => v === Math.ceil(v));
    // The notation first (the print options' sciMode, else chosen by range), then the width in that notation,
    // as PyTorch 2.4 and later do (before, the width was measured in the chosen notation even when sciMode
    // forced the other, so forced scientific numbers went unpadded).
    this.sciMode = opts.sciMode ?? (max / min > 1000 || max > 1e8 || min < 1e-4);
    for (const v of finite) this.maxWidth = Math.max(this.maxWidth, this.format(v).length);
  }

  private plain(v: number): string {
    return this.isBool ? (v ? 'True' : 'False') : String(v);
  }

  get width(): number {
    return this.maxWidth;
  }

  format(v: number): string {
    let s: string;
    if (!this.floating) s = this.plain(v);
    else if (this.sciMode) s = sci(v, opts.precision);
    else if (this.intMode) s = Number.isFinite(v) ? `${fixed(v, 0)}.` : nonFinite(v);
    else s = fixed(v, opts.precision);
    return s.length < this.maxWidth ? ' '.repeat(this.maxWidth - s.length) + s : s;
  }
}

/** Elements kept along each dim (all, or edgeitems at each end), and where the cut is. */
interface Kept {
  shape: number[]; // shape of the gathered (summarized) tensor
  cut: boolean[]; // whether dim d was cut (a "..." after edgeitems)
}

/** Numbers from raw elements of a dtype. */
function decode(dtype: DType, bytes: ArrayBuffer): number[] {
  const raw = hostArray(dtype, bytes);
  const out = new Array<number>(raw.length);
  if (dtype === 'float16') for (let i = 0; i < raw.length; i++) out[i] = halfToNumber(raw[i] as number);
  else if (dtype === 'bfloat16') for (let i = 0; i < raw.length; i++) out[i] = bfloat16ToNumber(raw[i] as number);
  else for (let i = 0; i < raw.length; i++) out[i] = Number(raw[i]);
  return out;
}

/**
 * The printed elements of `t`, row-major: all of them (one read), or the
 * edge items of each long dim, read straight from the storage run by run
 * along the last dim, so that printing allocates no device memory.
 */
function gather(t: Tensor, summarize: boolean): { values: number[]; kept: Kept } {
  const e = opts.edgeitems;
  const cut = t.shape.map((s) => summarize && s > 2 * e);
  const shape = t.shape.map((s, d) => (cut[d] ? 2 * e : s));
  if (!cut.some((c) => c)) {
    const raw = t.toArray();
    const values = new Array<number>(raw.length);
    for (let i = 0; i < raw.length; i++) values[i] = Number(raw[i]);
    return { values, kept: { shape, cut } };
  }
  const size = dtypeSize(t.dtype);
  const strides = t.stride();
  const handle = t.handle();
  const last = t.ndim - 1;
  // Index runs kept along each dim: [start, length] pairs.
  const runs = t.shape.map((s, d): [number, number][] => (cut[d] ? [[0, e], [s - e, e]] : [[0, s]]));
  const values: number[] = [];
  const walk = (d: number, offset: number): void => {
    for (const [start, len] of runs[d]) {
      if (d === last) {
        const span = (len - 1) * strides[d] + 1;
        const got = decode(t.dtype, native.readBytes(handle, (offset + start * strides[d]) * size, span * size));
        for (let k = 0; k < len; k++) values.push(got[k * strides[d]]);
      } else {
        for (let k = 0; k < len; k++) walk(d + 1, offset + (start + k) * strides[d]);
      }
    }
  };
  walk(0, t.storageOffset());
  return { values, kept: { shape, cut } };
}

function body(values: number[], kept: Kept, f: Formatter, indent: number): string {
  const { shape, cut } = kept;
  const e = opts.edgeitems;
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d];
  }
  const rec = (d: number, base: number, ind: number): string => {
    const n = shape[d];
    if (d === shape.length - 1) {
      const items: string[] = [];
      for (let i = 0; i < n; i++) {
        if (cut[d] && i === e) items.push(' ...');
        items.push(f.format(values[base + i]));
      }
      const perLine = Math.max(1, Math.floor((opts.linewidth - ind) / (f.width + 2)));
      const lines: string[] = [];
      for (let i = 0; i < items.length; i += perLine) lines.push(items.slice(i, i + perLine).join(', '));
      return `[${lines.join(`,\n${' '.repeat(ind + 1)}`)}]`;
    }
    const parts: string[] = [];
    for (let i = 0; i < n; i++) {
      if (cut[d] && i === e) parts.push('...');
      parts.push(rec(d + 1, base + i * strides[d], ind + 1));
    }
    return `[${parts.join(`,${'\n'.repeat(shape.length - d - 1)}${' '.repeat(ind + 1)}`)}]`;
  };
  return rec(0, 0, indent);
}

/** The text PyTorch prints for `t` (repr). */
export function tensorToString(t: Tensor): string {
  const prefix = 'tensor(';
  const indent = prefix.length;
  const suffixes: string[] = [];
  if (t.device !== 'cpu') suffixes.push(`device='${t.device}'`);
  if (t.isDisposed) return `${prefix}<disposed>, size=(${t.shape.join(', ')}${t.ndim === 1 ? ',' : ''}), dtype=torch.${t.dtype})`;
  let text: string;
  if (t.numel === 0) {
    text = '[]';
    if (t.ndim !== 1) suffixes.push(`size=(${t.shape.join(', ')}${t.ndim === 1 ? ',' : ''})`);
  } else {
    const summarize = t.numel > opts.threshold;
    const { values, kept } = gather(t, summarize);
    const floating = t.dtype === 'float32' || t.dtype === 'float64' || t.dtype === 'float16' || t.dtype === 'bfloat16';
    const f = new Formatter(floating, t.dtype === 'bool', values);
    text = t.ndim === 0 ? f.format(values[0]) : body(values, kept, f, indent);
  }
  // As PyTorch: an empty tensor names every dtype but the default one (its values cannot show int64 or bool).
  const implied = t.dtype === getDefaultDtype() || (t.numel > 0 && (t.dtype === 'int64' || t.dtype === 'bool'));
  if (!implied) suffixes.push(`dtype=torch.${t.dtype}`);
  let out = prefix + text;
  let lastLine = out.length - out.lastIndexOf('\n') + 1;
  for (const s of suffixes) {
    if (lastLine + s.length + 2 > opts.linewidth) {
      out += `,\n${' '.repeat(indent)}${s}`;
      lastLine = indent + s.length;
    } else {
      out += `, ${s}`;
      lastLine += s.length + 2;
    }
  }
  return `${out})`;
}

declare module '../tensor' {
  interface Tensor {
    /** PyTorch's repr: `tensor([1., 2.], device='cuda:0')`. */
    toString(): string;
  }
}

const P = Tensor.prototype;
P.toString = function (this: Tensor) {
  return tensorToString(this);
};
(P as unknown as Record<symbol, unknown>)[Symbol.for('nodejs.util.inspect.custom')] = function (this: Tensor) {
  return tensorToString(this);
};

/** `Tensor(shape=[2, 3], dtype=float32, device=cpu)`: a one-line description without values. */
export function describeTensor(t: Tensor): string {
  return `Tensor(shape=${formatShape(t.shape)}, dtype=${t.dtype}, device=${t.device}${t.isDisposed ? ', disposed' : ''})`;
}
