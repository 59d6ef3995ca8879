/**
 * torch.supports(op, device, dtype) answers before a call what the call
 * would find: for every op of the op list and every dtype on cpu, the answer
 * agrees with the binding accepting or refusing that dtype ("dtype ... is
 * not supported"); device kinds follow the registered kernels; unknown ops
 * and bad arguments are errors.
 */
import * as torch from '../../native/index';
import { native } from '../../native/addon';
import { runOp } from '../../native/ops/dispatch';

const DTYPES: torch.DType[] = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool'];

describe('supports()', () => {
  test('the dtype sets of the op list, resolved', () => {
    expect(torch.supports('silu', 'cpu', 'float32')).toBe(true);
    expect(torch.supports('silu', 'cpu', 'int64')).toBe(false);
    expect(torch.supports('add', 'cpu', 'int64')).toBe(true);
    expect(torch.supports('add', 'cpu', 'bool')).toBe(false);
    expect(torch.supports('gemm', 'cpu', 'bfloat16')).toBe(true);
    expect(torch.supports('gemm', 'cpu', 'int32')).toBe(false);
    expect(torch.supports('bitwiseAnd', 'cpu', 'bool')).toBe(true);
    expect(torch.supports('bitwiseAnd', 'cpu', 'float32')).toBe(false);
    expect(torch.supports('copy', 'cpu', 'bool')).toBe(true);
  });

  test('every op and dtype: the answer follows the op list\'s dtype set as its grammar defines it', () => {
    // op_list.h: all | numeric (all but bool) | float | int (uint8 included) | bool | names, joined by '|'.
    const KIND: Record<string, (d: torch.DType) => boolean> = {
      all: () => true,
      numeric: (d) => d !== 'bool',
      float: (d) => ['float32', 'float64', 'float16', 'bfloat16'].includes(d),
      int: (d) => ['int8', 'uint8', 'int16', 'int32', 'int64'].includes(d),
      bool: (d) => d === 'bool',
    };
    const written = new Map(native.opList().map((o) => [o.name, o.dtypes]));
    expect(torch.opList().length).toBe(written.size);
    for (const op of torch.opList()) {
      const items = written.get(op)!.split('|');
      for (const dtype of DTYPES) {
        const want = items.some((it) => (KIND[it] ? KIND[it](dtype) : it === dtype));
        expect({ op, dtype, supported: torch.supports(op, 'cpu', dtype) }).toEqual({ op, dtype, supported: want });
      }
    }
    expect(torch.opSupport('silu')!.dtypes).toEqual(['float32', 'float64', 'float16', 'bfloat16']);
    expect(torch.opSupport('copy')!.dtypes).toEqual(DTYPES);
  });

  test('what supports() refuses, the call refuses; what it accepts, the call runs', () => {
    const x = torch.ones(3, { dtype: 'int64' });
    const out = torch.empty(3, { dtype: 'int64' });
    expect(torch.supports('silu', 'cpu', 'int64')).toBe(false);
    expect(() => runOp('silu', [out], [x])).toThrow('silu: dtype int64 is not supported (expected float)');
    expect(torch.supports('neg', 'cpu', 'int64')).toBe(true);
    runOp('neg', [out], [x]);
    expect(Array.from(out.toArray() as BigInt64Array, Number)).toEqual([-1, -1, -1]);
  });

  test('devices: cpu always; cuda where CUDA kernels are compiled in (present or not)', () => {
    expect(torch.opSupport('add')!.devices).toContain('cpu');
    expect(torch.supports('add', 'cuda:0', 'float32')).toBe(native.builtWithCuda);
    expect(torch.supports('add', 'cuda', 'float32')).toBe(native.builtWithCuda);
  });

  test('errors name the problem', () => {
    expect(() => torch.supports('frobnicate', 'cpu', 'float32')).toThrow("supports: no op named 'frobnicate' in the op list");
    expect(() => torch.supports(3 as unknown as string, 'cpu', 'float32')).toThrow('supports: expected an op name for op, got number');
    expect(() => torch.supports('add', 'tpu', 'float32')).toThrow(/tpu/);
    expect(torch.opSupport('frobnicate')).toBeNull();
  });
});
