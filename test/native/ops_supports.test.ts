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
import { unsupportedError } from '../../native/ops/supports';

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

  test('scatterAdd (indexAdd\'s kernel) and sort take 16-bit floats on every device with a kernel (cuda: 16-bit atomics, long rows)', () => {
    for (const op of ['scatterAdd', 'sort', 'layerNorm']) {
      for (const device of torch.opSupport(op)!.devices) {
        for (const dtype of ['float16', 'bfloat16'] as torch.DType[]) expect([op, device, dtype, torch.supports(op, device, dtype)]).toEqual([op, device, dtype, true]);
      }
    }
    expect(torch.supports('scatterAdd', 'cpu', 'bool')).toBe(false);
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

describe('unsupportedError: the messages of ops that refuse a dtype, from the op list', () => {
  test('a kernel that takes the dtype on no device lists what it takes on this one', () => {
    expect(() => torch.hypot(torch.ones(2, { dtype: 'int32' }), torch.ones(2, { dtype: 'int32' })))
      .toThrow('hypot: "hypot_cpu" not implemented for \'int32\': no int32 hypot on cpu; no device has one (hypot takes float32, float64, float16 or bfloat16 on cpu); cast to a floating dtype first');
    expect(() => torch.bitwiseAnd(torch.ones(2), 1))
      .toThrow('bitwiseAnd: "bitwiseAnd" not implemented for \'float32\': no float32 bitwiseAnd on cpu; no device has one (bitwiseAnd takes int8, uint8, int16, int32, int64 or bool on cpu)');
    expect(() => torch.ones(2).bitwiseNot()).toThrow('bitwiseNot: "bitwise_not" not implemented for \'float32\': no float32 bitwiseNot on cpu');
    expect(() => torch.addmm(torch.ones(2, 2, { dtype: 'int32' }), torch.ones(2, 2, { dtype: 'int32' }), torch.ones(2, 2, { dtype: 'int32' })))
      .toThrow('addmm: dtype int32 of mat1 is not supported: no int32 gemm on cpu; no device has one (gemm takes float32, float64, float16 or bfloat16 on cpu)');
  });

  test('dtypes a device composes without the kernel count: matmul of bool lists cpu\'s integer products', () => {
    const b = torch.ones(2, 2, { dtype: 'bool' });
    const e = (() => { try { torch.matmul(b, b); } catch (err) { return err as Error & { code: string }; } throw new Error('matmul of bool ran'); })();
    expect(e.code).toBe('TSGPU_UNSUPPORTED');
    expect(e.message).toBe('matmul: "addmm" not implemented for \'Bool\': no bool gemm on cpu; no device has one ' +
      '(gemm takes float32, float64, float16, bfloat16, int8, uint8, int16, int32 or int64 on cpu); matrix products of bool tensors are not supported, as in PyTorch');
  });

  test('another device that has the kernel is named (answered from the op list, present or not)', () => {
    // int64 gemm on cuda: cpu composes integer products, so cpu has one.
    const e = unsupportedError('matmul', 'gemm', 'cuda:0', 'int64', { composed: { cpu: ['int64'] } });
    expect(e.message).toBe('matmul: no int64 gemm on cuda; cpu has one');
    expect(() => unsupportedError('x', 'frobnicate', 'cpu', 'float32')).toThrow("unsupportedError: no op named 'frobnicate' in the op list");
  });
});

test('convolutions and pools refuse integer inputs naming the kernel they run', () => {
  const x = torch.ones(1, 1, 4, 4, { dtype: 'int32' });
  expect(() => torch.conv2d(x, torch.ones(1, 1, 2, 2, { dtype: 'int32' })))
    .toThrow('conv2d: dtype int32 of input is not supported: no int32 im2col on cpu; no device has one (im2col takes float32, float64, float16 or bfloat16 on cpu); cast to a floating dtype first');
  expect(() => torch.maxPool2d(x, 2)).toThrow(/^maxPool2d: dtype int32 of input is not supported: no int32 im2col on cpu/);
  expect(() => torch.adaptiveAvgPool2d(x, 2)).toThrow(/^adaptiveAvgPool2d: dtype int32 of input is not supported: no int32 gemm on cpu/);
});
