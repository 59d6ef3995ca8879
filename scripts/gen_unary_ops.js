/**
 * The TypeScript surface of the plain unary ops, generated from the op list
 * (native/src/runtime/op_list.h) by scripts/gen_native_tables.js into
 * native/generated/unary_ops.ts: for each op, the `torch.` function, the
 * Tensor method and its in-place `_` form, their declarations (with a doc
 * comment) and PyTorch's aliases.
 *
 * A plain unary op is a row with one tensor input `self`, one output `out`,
 * no attributes and the `inplace` flag. Its dtype set says how it computes:
 *   float    integer and bool inputs compute in the default dtype (unaryFloat)
 *   numeric  the input's own dtype, bool refused by the binding (unaryNumeric)
 * A row of that shape whose TypeScript does more stays hand-written and is
 * listed in HAND_WRITTEN with the reason; a row of that shape that is neither
 * generated nor listed stops the build, so every such op is one or the other.
 */
'use strict';

const { pushDoc, pushAliasExports, pushTensorDeclarations, pushPrototype } = require('./gen_ops_module');

/** The compute rule of each dtype set a generated op may have, and the helper of native/ops/unary.ts that applies it. */
const RULES = {
  float: { helper: 'unaryFloat', dtypes: 'Floating: integer and bool inputs compute in the default dtype.' },
  numeric: { helper: 'unaryNumeric', dtypes: 'Any dtype but bool; the result keeps the input\'s dtype.' },
};

/** Ops of the plain unary shape whose TypeScript does real work, so they are not generated (where they are, and why). */
const HAND_WRITTEN = {
  sign: 'native/ops/math.ts: a bool tensor is its own sign (PyTorch\'s), which the numeric kernel does not take',
  round: 'native/ops/math.ts: the decimals option scales around the kernel',
  logicalNot: 'native/ops/math.ts: the result is bool whatever the input\'s dtype',
  bitwiseNot: 'native/ops/math_functions.ts: floating inputs are refused with PyTorch\'s message',
  nonzero: 'native/ops/indexing.ts: the output is [count, ndim] coordinates, sized from a count made first',
};

/** PyTorch's other names of generated ops (a function and a method each, no in-place form). */
const ALIASES = {
  asin: ['arcsin'], acos: ['arccos'], atan: ['arctan'], asinh: ['arcsinh'], acosh: ['arccosh'], atanh: ['arctanh'],
};

/**
 * What each op computes, for its doc comment (the dtype rule is added from
 * the row). An op without a line gets a doc comment naming its rule only.
 */
const DOCS = {
  exp: 'e ** self.',
  expm1: 'e ** self - 1, accurate for small self.',
  log: 'The natural logarithm (NaN below 0, -inf at 0).',
  log1p: 'log(1 + self), accurate for small self.',
  log2: 'The base-2 logarithm.',
  sqrt: 'The square root (NaN below 0).',
  rsqrt: '1 / sqrt(self).',
  reciprocal: '1 / self.',
  sin: 'Sine.',
  cos: 'Cosine.',
  tanh: 'Hyperbolic tangent.',
  sigmoid: '1 / (1 + e ** -self).',
  silu: 'self * sigmoid(self).',
  neg: '-self.',
  abs: '|self|.',
  relu: 'max(self, 0).',
  floor: 'Rounded toward -inf (integers unchanged).',
  ceil: 'Rounded toward +inf (integers unchanged).',
  trunc: 'Rounded toward 0 (integers unchanged).',
  tan: 'Tangent.',
  asin: 'Arcsine (NaN outside [-1, 1]).',
  acos: 'Arccosine (NaN outside [-1, 1]).',
  atan: 'Arctangent.',
  sinh: 'Hyperbolic sine.',
  cosh: 'Hyperbolic cosine.',
  asinh: 'Inverse hyperbolic sine.',
  acosh: 'Inverse hyperbolic cosine (NaN below 1).',
  atanh: 'Inverse hyperbolic tangent (±inf at ±1, NaN outside).',
  log10: 'The base-10 logarithm.',
  exp2: '2 ** self.',
  erf: 'The error function.',
  erfc: '1 - erf(self), accurate where erf(self) is near 1.',
  erfinv: 'The inverse of erf on [-1, 1] (±inf at ±1, NaN outside).',
};

/** Whether an op-list row has the plain unary shape. */
function plainShape(op) {
  return op.inputs.length === 1 && op.inputs[0] === 'self' && op.outputs.length === 1 && op.outputs[0] === 'out' &&
    op.attrs.length === 0;
}

/** The generated ops, in op-list order: { name, rule } for each; throws on a row of the shape that fits no rule. */
function plainUnaryOps(ops) {
  const names = new Set(ops.map((o) => o.name));
  for (const table of [HAND_WRITTEN, ALIASES, DOCS]) {
    for (const n of Object.keys(table)) if (!names.has(n)) throw new Error(`gen_unary_ops: ${n} is not an op of op_list.h`);
  }
  const out = [];
  for (const op of ops) {
    if (!plainShape(op) || op.name in HAND_WRITTEN) continue;
    if (!RULES[op.dtypes] || !op.inplace) {
      throw new Error(`gen_unary_ops: ${op.name} takes one tensor and no attributes but has dtypes '${op.dtypes}'` +
        `${op.inplace ? '' : ' and no inplace flag'}; generated ops need 'float' or 'numeric' and 'inplace': ` +
        'write its TypeScript by hand and list it in HAND_WRITTEN with the reason');
    }
    out.push({ name: op.name, rule: op.dtypes });
  }
  for (const n of Object.keys(ALIASES).concat(Object.keys(DOCS))) {
    if (!out.some((o) => o.name === n)) throw new Error(`gen_unary_ops: ${n} has a line in a table but is not generated`);
  }
  return out;
}

/** The doc comment of an op's function and method. */
function docOf(op) {
  return `${DOCS[op.name] ?? `The elementwise op \`${op.name}\` of the op list.`} ${RULES[op.rule].dtypes}`;
}

/** The text of native/generated/unary_ops.ts, after `header`. */
function unaryOpsModule(ops, header) {
  const plain = plainUnaryOps(ops);
  const lines = [header.trimEnd()];
  pushDoc(lines, [
    'The plain unary ops (one tensor in, one out, no attributes): `torch.` functions,',
    'Tensor methods and their in-place `_` forms, each computing as its dtype set',
    'in the op list says (see native/ops/unary.ts). The ops of that shape written',
    'by hand, and why:',
    ...Object.entries(HAND_WRITTEN).map(([n, why]) => `  ${n}: ${why}`),
  ]);
  lines.push("import { Tensor } from '../tensor';");
  lines.push("import { unaryFloat, unaryNumeric } from '../ops/unary';");
  lines.push('');
  for (const op of plain) {
    lines.push(`/** ${docOf(op)} */`);
    lines.push(`export function ${op.name}(self: Tensor): Tensor { return ${RULES[op.rule].helper}('${op.name}', self); }`);
  }
  const aliases = plain.flatMap((op) => (ALIASES[op.name] ?? []).map((alias) => ({ alias, op })));
  pushAliasExports(lines, aliases);
  pushTensorDeclarations(lines, [
    ...plain.flatMap((op) => [[docOf(op), `${op.name}(): Tensor`], [`In place: ${docOf(op)}`, `${op.name}_(): Tensor`]]),
    ...aliases.map(({ alias, op }) => [`${op.name}: ${docOf(op)}`, `${alias}(): Tensor`]),
  ]);
  pushPrototype(lines, plain.flatMap((op) => {
    const h = RULES[op.rule].helper;
    return [`P.${op.name} = function (this: Tensor) { return ${h}('${op.name}', this); };`,
      `P.${op.name}_ = function (this: Tensor) { return ${h}('${op.name}', this, this); };`];
  }), aliases);
  return lines.join('\n');
}

/** The table appended to native/generated/op_list.ts: the generated ops, their dtype set and aliases. */
function plainUnaryTable(ops) {
  const lines = [''];
  lines.push('/**');
  lines.push(' * The plain unary ops, whose TypeScript surface is generated (native/generated/unary_ops.ts):');
  lines.push(' * the dtype set each computes by (`float`: integers and bool promote to the default dtype;');
  lines.push(' * `numeric`: the input\'s dtype) and PyTorch\'s other names of it.');
  lines.push(' */');
  lines.push("export const PLAIN_UNARY_OPS: readonly { name: OpName; dtypes: 'float' | 'numeric'; aliases: readonly string[] }[] = [");
  for (const op of plainUnaryOps(ops)) {
    lines.push(`  { name: '${op.name}', dtypes: '${op.rule}', aliases: [${(ALIASES[op.name] ?? []).map((a) => `'${a}'`).join(', ')}] },`);
  }
  lines.push('];');
  return lines.join('\n') + '\n';
}

module.exports = { unaryOpsModule, plainUnaryTable, plainUnaryOps, HAND_WRITTEN };
