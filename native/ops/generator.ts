/**
 * torch.Generator: random streams of their own beside the global one
 * (torch.defaultGenerator, which torch.manualSeed seeds). A generator is a
 * seed and a counter of the same Philox stream the kernels draw from
 * (native/src/runtime/generator.*): a draw with `{ generator: g }` runs on
 * g's seed and counter and moves only g's counter, so the global stream and
 * every other generator are untouched, and the same seed gives the same
 * numbers on cpu and cuda.
 *
 * The state (getState/setState) is a uint8 tensor of 16 bytes: the seed and
 * the counter as little-endian 64-bit integers (PyTorch's CUDA generators
 * keep a seed and an offset too; its CPU generator keeps a Mersenne
 * Twister, whose numbers tsgpu does not reproduce).
 */
import { randomBytes } from 'crypto';
import { native } from '../addon';
import { DeviceLike, normalizeDevice } from '../device';
import { codedError } from '../errors';
import { emptyTensor, Tensor } from '../tensor';
import { argError } from './helpers';

/** The seed of a new torch.Generator, as PyTorch's (default_rng_seed_val). */
const DEFAULT_SEED = 67280421310721;

/** Bytes of a generator's state tensor: seed and counter, 8 each. */
const STATE_BYTES = 16;

function checkSeed(op: string, seed: unknown): number {
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed > BigInt(Number.MAX_SAFE_INTEGER)) argError(op, 'an integer in [0, 2^53)', 'seed', String(seed));
    return Number(seed);
  }
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) argError(op, 'an integer in [0, 2^53)', 'seed', seed);
  return seed as number;
}

/** A fresh seed from the operating system's random source (below 2^53, so that a number holds it exactly). */
function nondeterministicSeed(): number {
  return Number(randomBytes(8).readBigUInt64LE() >> 11n);
}

/**
 * A random number generator (torch.Generator). Pass it to a random function
 * as `{ generator }`: `torch.randn([2, 3], { generator: g })`,
 * `x.uniform_(0, 1, { generator: g })`, `torch.multinomial(p, 4, true, { generator: g })`.
 * A new one starts at seed 67280421310721 (PyTorch's default), counter 0.
 */
export class Generator {
  /** The device the generator is for ("cpu" by default); the numbers are the same on every device. */
  readonly device: string;
  private seed_: number;
  private offset_: number;

  /** A generator for `device` (default "cpu"). */
  constructor(device: DeviceLike = 'cpu') {
    this.device = normalizeDevice(device);
    this.seed_ = DEFAULT_SEED;
    this.offset_ = 0;
  }

  /** Seeds the generator and restarts its counter; returns the generator (as PyTorch's manual_seed). */
  manualSeed(seed: number | bigint): this {
    this.setRaw(checkSeed('Generator.manualSeed', seed), 0);
    return this;
  }

  /** Seeds the generator from the operating system's random source and returns the seed. */
  seed(): number {
    const s = nondeterministicSeed();
    this.setRaw(s, 0);
    return s;
  }

  /** The seed the generator was last seeded with. */
  initialSeed(): number {
    return this.raw()[0];
  }

  /** The state: a uint8 cpu tensor of 16 bytes (seed, counter); setState with it replays the draws that followed. */
  getState(): Tensor {
    const [seed, offset] = this.raw();
    const bytes = new Uint8Array(STATE_BYTES);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(0, BigInt(seed), true);
    view.setBigUint64(8, BigInt(offset), true);
    const t = emptyTensor([STATE_BYTES], 'uint8', 'cpu');
    native.writeBytes(t.handle(), 0, bytes);
    return t;
  }

  /** Restores a state getState gave; returns the generator. */
  setState(state: Tensor): this {
    if (!(state instanceof Tensor)) argError('Generator.setState', 'a Tensor', 'newState', state);
    if (state.dtype !== 'uint8') {
      throw codedError('TSGPU_ARG', `Generator.setState: expected a torch.ByteTensor, but got ${state.dtype}`);
    }
    if (state.numel !== STATE_BYTES) {
      throw codedError('TSGPU_ARG', `Generator.setState: RNG state is wrong size: expected ${STATE_BYTES} bytes (seed and counter), got ${state.numel}`);
    }
    const bytes = state.device === 'cpu' ? state.contiguous() : state.to('cpu');
    try {
      const raw = bytes.data() as Uint8Array;
      const view = new DataView(raw.buffer, raw.byteOffset, STATE_BYTES);
      const seed = view.getBigUint64(0, true);
      const offset = view.getBigUint64(8, true);
      const max = BigInt(Number.MAX_SAFE_INTEGER);
      if (seed > max || offset > max) throw codedError('TSGPU_ARG', 'Generator.setState: the state is not one getState gave (seed or counter above 2^53)');
      this.setRaw(Number(seed), Number(offset));
    } finally {
      if (bytes !== state) bytes.dispose();
    }
    return this;
  }

  /** [seed, counter] now. */
  protected raw(): [number, number] {
    return [this.seed_, this.offset_];
  }

  /** Sets seed and counter. */
  protected setRaw(seed: number, offset: number): void {
    this.seed_ = seed;
    this.offset_ = offset;
  }

  /**
   * Runs `draw` (ops that take counters from the global stream) on this
   * generator's stream: the global seed and counter are swapped for this
   * generator's around it, and restored after, also when it throws.
   */
  run<T>(draw: () => T): T {
    const [gSeed, gOffset] = native.getRngState();
    native.setRngState(this.seed_, this.offset_);
    try {
      return draw();
    } finally {
      const [, offset] = native.getRngState();
      this.offset_ = offset;
      native.setRngState(gSeed, gOffset);
    }
  }
}

/** The global generator (torch.default_generator): its stream is the one torch.manualSeed seeds. */
class DefaultGenerator extends Generator {
  protected raw(): [number, number] {
    return native.getRngState();
  }
  protected setRaw(seed: number, offset: number): void {
    native.setRngState(seed, offset);
  }
  run<T>(draw: () => T): T {
    return draw();
  }
}

/** The global generator (PyTorch's torch.default_generator); torch.manualSeed(n) is defaultGenerator.manualSeed(n). */
export const defaultGenerator: Generator = new DefaultGenerator('cpu');

/** The `generator` option of the random functions. */
export interface GeneratorOptions {
  /** The generator to draw from (default: torch.defaultGenerator). */
  generator?: Generator | null;
}

/**
 * Runs `draw` on `generator`'s stream (the global one when it is null or
 * undefined); a generator made for cuda refuses a cpu tensor and the other
 * way round, as PyTorch does.
 */
export function withGenerator<T>(op: string, generator: Generator | null | undefined, device: string, draw: () => T): T {
  if (generator === undefined || generator === null) return draw();
  if (!(generator instanceof Generator)) argError(op, 'a torch.Generator', 'generator', generator);
  const want = device.split(':')[0];
  const have = generator.device.split(':')[0];
  if (generator !== defaultGenerator && want !== have) {
    throw codedError('TSGPU_ARG', `${op}: Expected a '${want}' device type for generator but found '${have}'`);
  }
  return generator.run(draw);
}

/** A fresh nondeterministic seed for the global generator (torch.seed); returns it. */
export function seed(): number {
  return defaultGenerator.seed();
}
