/**
 * Cases (inputs, the PyTorch expression, the runtime's computation) of the
 * nn functions with PyTorch's full signatures: crossEntropy and nllLoss over
 * [C], [N, C] and [N, C, d1, d2] with class indices or probabilities,
 * weight, ignoreIndex, labelSmoothing and every reduction; embedding with
 * paddingIdx, maxNorm and scaleGradByFreq; layerNorm/rmsNorm with optional affine tensors,
 * nativeLayerNorm's [out, mean, rstd];
 * scaledDotProductAttention with dropoutP (the mask regenerated from the
 * same seed), masks, scale and isCausal; integer division by zero.
 *
 * Shared by the PyTorch differential test (torch_nn.test.ts) and the CUDA
 * test (cuda_kernels.test.ts), which runs each case on cuda and compares with cpu.
 */
import * as torch from '../../../native/index';
import { RefCase } from '../torch_reference';

torch.manualSeed(13579);
const logits = torch.randn([6, 7]).mul(3);
const target = torch.randint(0, 7, [6]);
const ignored = torch.tensor([1, -100, 3, 0, -100, 6], { dtype: 'int64' });
const weight = torch.rand([7]).add(0.2);
const probs = torch.randn([6, 7]).softmax(1);
const img = torch.randn([3, 5, 4, 2]).mul(2);         // [N, C, d1, d2]
const imgTarget = torch.randint(0, 5, [3, 4, 2]);
const imgIgnored = torch.where(torch.rand([3, 4, 2]).lt(0.25), -100, imgTarget);
const imgWeight = torch.rand([5]).add(0.5);
const imgProbs = torch.randn([3, 5, 4, 2]).softmax(1);
const seq = torch.randn([2, 7, 9]);                  // [N, C, d1]
const seqTarget = torch.randint(0, 7, [2, 9]);
const one = torch.randn([7]);
const f64 = torch.randn([6, 7]).double();
const allIgnored = torch.full([6], -100, { dtype: 'int64' });

const ce = 'torch.nn.functional.cross_entropy';
const nll = 'torch.nn.functional.nll_loss';

const losses: RefCase[] = [
  { name: 'crossEntropy [N, C, d1, d2]', inputs: { img, imgTarget }, torch: `${ce}(img, imgTarget)`, run: ({ img, imgTarget }) => torch.crossEntropy(img, imgTarget) },
  { name: 'crossEntropy [N, C, d1, d2] none', inputs: { img, imgIgnored }, torch: `${ce}(img, imgIgnored, reduction='none')`,
    run: ({ img, imgIgnored }) => torch.crossEntropy(img, imgIgnored, { reduction: 'none' }) },
  { name: 'crossEntropy [N, C, d1, d2] weight, ignored, mean', inputs: { img, imgIgnored, imgWeight }, torch: `${ce}(img, imgIgnored, weight=imgWeight)`,
    run: ({ img, imgIgnored, imgWeight }) => torch.crossEntropy(img, imgIgnored, { weight: imgWeight }) },
  { name: 'crossEntropy [N, C, d1] sum', inputs: { seq, seqTarget }, torch: `${ce}(seq, seqTarget, reduction='sum')`,
    run: ({ seq, seqTarget }) => torch.crossEntropy(seq, seqTarget, { reduction: 'sum' }) },
  { name: 'crossEntropy weight mean', inputs: { logits, ignored, weight }, torch: `${ce}(logits, ignored, weight=weight)`,
    run: ({ logits, ignored, weight }) => torch.crossEntropy(logits, ignored, { weight }) },
  { name: 'crossEntropy weight none', inputs: { logits, ignored, weight }, torch: `${ce}(logits, ignored, weight=weight, reduction='none')`,
    run: ({ logits, ignored, weight }) => torch.crossEntropy(logits, ignored, { weight, reduction: 'none' }) },
  { name: 'crossEntropy weight and label smoothing mean', inputs: { logits, ignored, weight }, torch: `${ce}(logits, ignored, weight=weight, label_smoothing=0.15)`,
    run: ({ logits, ignored, weight }) => torch.crossEntropy(logits, ignored, { weight, labelSmoothing: 0.15 }) },
  { name: 'crossEntropy weight and label smoothing sum', inputs: { logits, ignored, weight }, torch: `${ce}(logits, ignored, weight=weight, label_smoothing=0.3, reduction='sum')`,
    run: ({ logits, ignored, weight }) => torch.crossEntropy(logits, ignored, { weight, labelSmoothing: 0.3, reduction: 'sum' }) },
  { name: 'crossEntropy weight and label smoothing none', inputs: { logits, ignored, weight }, torch: `${ce}(logits, ignored, weight=weight, label_smoothing=0.3, reduction='none')`,
    run: ({ logits, ignored, weight }) => torch.crossEntropy(logits, ignored, { weight, labelSmoothing: 0.3, reduction: 'none' }) },
  { name: 'crossEntropy label smoothing [N, C, d1, d2]', inputs: { img, imgIgnored }, torch: `${ce}(img, imgIgnored, label_smoothing=0.2)`,
    run: ({ img, imgIgnored }) => torch.crossEntropy(img, imgIgnored, { labelSmoothing: 0.2 }) },
  { name: 'crossEntropy ignoreIndex 3', inputs: { logits, target }, torch: `${ce}(logits, target, ignore_index=3)`,
    run: ({ logits, target }) => torch.crossEntropy(logits, target, { ignoreIndex: 3 }) },
  { name: 'crossEntropy unbatched [C]', inputs: { one }, torch: `${ce}(one, torch.tensor(4))`, run: ({ one }) => torch.crossEntropy(one, torch.tensor(4, { dtype: 'int64', device: one.device })) },
  { name: 'crossEntropy float64', inputs: { f64, target }, torch: `${ce}(f64, target, label_smoothing=0.1)`, run: ({ f64, target }) => torch.crossEntropy(f64, target, { labelSmoothing: 0.1 }) },
  { name: 'crossEntropy bfloat16 with weight and smoothing', inputs: { lb: logits.bfloat16(), ignored, wb: weight.bfloat16() },
    torch: `${ce}(lb, ignored, weight=wb, label_smoothing=0.1, reduction='none')`, run: ({ lb, ignored, wb }) => torch.crossEntropy(lb, ignored, { weight: wb, labelSmoothing: 0.1, reduction: 'none' }),
    rtol: 3e-2, atol: 3e-2 },
  { name: 'crossEntropy every target ignored is NaN', inputs: { logits, allIgnored }, torch: `${ce}(logits, allIgnored)`, run: ({ logits, allIgnored }) => torch.crossEntropy(logits, allIgnored) },
  { name: 'crossEntropy probabilities', inputs: { logits, probs }, torch: `${ce}(logits, probs)`, run: ({ logits, probs }) => torch.crossEntropy(logits, probs) },
  { name: 'crossEntropy probabilities weight, smoothing', inputs: { logits, probs, weight }, torch: `${ce}(logits, probs, weight=weight, label_smoothing=0.2)`,
    run: ({ logits, probs, weight }) => torch.crossEntropy(logits, probs, { weight, labelSmoothing: 0.2 }) },
  { name: 'crossEntropy probabilities [N, C, d1, d2] none', inputs: { img, imgProbs }, torch: `${ce}(img, imgProbs, reduction='none')`,
    run: ({ img, imgProbs }) => torch.crossEntropy(img, imgProbs, { reduction: 'none' }) },
  { name: 'crossEntropy probabilities [N, C, d1, d2] weight mean', inputs: { img, imgProbs, imgWeight }, torch: `${ce}(img, imgProbs, weight=imgWeight)`,
    run: ({ img, imgProbs, imgWeight }) => torch.crossEntropy(img, imgProbs, { weight: imgWeight }) },
  { name: 'crossEntropy probabilities sum', inputs: { logits, probs }, torch: `${ce}(logits, probs, reduction='sum')`, run: ({ logits, probs }) => torch.crossEntropy(logits, probs, { reduction: 'sum' }) },
  { name: 'nllLoss [N, C, d1, d2] weight ignored', inputs: { img, imgIgnored, imgWeight }, torch: `${nll}(img.log_softmax(1), imgIgnored, weight=imgWeight)`,
    run: ({ img, imgIgnored, imgWeight }) => torch.nllLoss(img.logSoftmax(1), imgIgnored, { weight: imgWeight }) },
  { name: 'nllLoss weight none', inputs: { logits, ignored, weight }, torch: `${nll}(logits, ignored, weight=weight, reduction='none')`,
    run: ({ logits, ignored, weight }) => torch.nllLoss(logits, ignored, { weight, reduction: 'none' }) },
  { name: 'nllLoss weight sum', inputs: { logits, ignored, weight }, torch: `${nll}(logits, ignored, weight=weight, reduction='sum')`,
    run: ({ logits, ignored, weight }) => torch.nllLoss(logits, ignored, { weight, reduction: 'sum' }) },
  { name: 'nllLoss ignoreIndex 0 [N, C, d1]', inputs: { seq, seqTarget }, torch: `${nll}(seq, seqTarget, ignore_index=0)`,
    run: ({ seq, seqTarget }) => torch.nllLoss(seq, seqTarget, { ignoreIndex: 0 }) },
  { name: 'nllLoss of a transpose', inputs: { seq, seqTarget }, torch: `${nll}(seq.transpose(1, 2).reshape(18, 7), seqTarget.reshape(18))`,
    run: ({ seq, seqTarget }) => torch.nllLoss(seq.transpose(1, 2).reshape(18, 7), seqTarget.reshape(18)) },
  { name: 'crossEntropy target out of bounds', inputs: { logits }, torch: `${ce}(logits, torch.tensor([0, 7, 1, 1, 2, 3]))`,
    run: ({ logits }) => torch.crossEntropy(logits, torch.tensor([0, 7, 1, 1, 2, 3], { dtype: 'int64' })), error: /crossEntropy: target 7 is out of bounds for 7 classes/ },
  { name: 'nllLoss negative target', inputs: { logits }, torch: `${nll}(logits, torch.tensor([0, -1, 1, 1, 2, 3]))`,
    run: ({ logits }) => torch.nllLoss(logits, torch.tensor([0, -1, 1, 1, 2, 3], { dtype: 'int64' })), error: /nllLoss: target -1 is out of bounds/ },
  { name: 'crossEntropy int32 target refused', inputs: { logits, target }, torch: `${ce}(logits, target.int())`,
    run: ({ logits, target }) => torch.crossEntropy(logits, target.int()), error: /crossEntropy: expected an int64 target .* for target, got 'int32'/ },
  { name: 'nllLoss of probabilities refused', inputs: { logits, probs }, torch: `${nll}(logits, probs)`,
    run: ({ logits, probs }) => torch.nllLoss(logits, probs), error: /nllLoss: expected an int64 target of class indices for target, got 'float32'/ },
  { name: 'crossEntropy weight of the wrong size', inputs: { logits, target }, torch: `${ce}(logits, target, weight=torch.ones(6))`,
    run: ({ logits, target }) => torch.crossEntropy(logits, target, { weight: torch.ones([6]) }), error: /expected a weight of shape \[7\] \(one per class\) for weight, got '\[6\]'/ },
  { name: 'crossEntropy weight of another dtype', inputs: { logits, target }, torch: `${ce}(logits, target, weight=torch.ones(7, dtype=torch.float64))`,
    run: ({ logits, target }) => torch.crossEntropy(logits, target, { weight: torch.ones([7], { dtype: 'float64' }) }), error: /weight of the input's dtype float32/ },
  { name: 'crossEntropy probabilities with ignoreIndex', inputs: { logits, probs }, torch: `${ce}(logits, probs, ignore_index=1)`,
    run: ({ logits, probs }) => torch.crossEntropy(logits, probs, { ignoreIndex: 1 }), error: /negative ignoreIndex with a floating/ },
  { name: 'crossEntropy target batch mismatch', inputs: { logits }, torch: `${ce}(logits, torch.zeros(5, dtype=torch.long))`,
    run: ({ logits }) => torch.crossEntropy(logits, torch.zeros([5], { dtype: 'int64' })), error: /expected a target of shape \[6\] for input of shape \[6, 7\], got \[5\]/ },
];

const table = torch.randn([10, 4]).mul(2);
const tokens = torch.randint(0, 10, [3, 5]);
const ids32 = torch.randint(0, 10, [7]).int();

const embeddings: RefCase[] = [
  { name: 'embedding paddingIdx', inputs: { tokens, table }, torch: 'torch.nn.functional.embedding(tokens, table, padding_idx=2)',
    run: ({ tokens, table }) => torch.embedding(tokens, table, { paddingIdx: 2 }) },
  { name: 'embedding negative paddingIdx', inputs: { tokens, table }, torch: 'torch.nn.functional.embedding(tokens, table, padding_idx=-1)',
    run: ({ tokens, table }) => torch.nn.functional.embedding(tokens, table, { paddingIdx: -1 }) },
  { name: 'embedding paddingIdx out of range', inputs: { tokens, table }, torch: 'torch.nn.functional.embedding(tokens, table, padding_idx=10)',
    run: ({ tokens, table }) => torch.embedding(tokens, table, { paddingIdx: 10 }), error: /embedding: expected a paddingIdx in \[-10, 9\]/ },
  { name: 'embedding int32 indices', inputs: { ids32, table }, torch: 'torch.nn.functional.embedding(ids32, table)', run: ({ ids32, table }) => torch.embedding(ids32, table) },
  { name: 'embedding maxNorm renormalizes the rows looked up, in place', inputs: { tokens, table },
    torch: '(torch.nn.functional.embedding(tokens, w := table.clone(), max_norm=1.5), w)',
    run: ({ tokens, table }) => { const w = table.clone(); return [torch.embedding(tokens, w, { maxNorm: 1.5 }), w]; } },
  { name: 'embedding maxNorm with normType 1', inputs: { tokens, table },
    torch: '(torch.nn.functional.embedding(tokens, w := table.clone(), max_norm=2.0, norm_type=1.0), w)',
    run: ({ tokens, table }) => { const w = table.clone(); return [torch.embedding(tokens, w, { maxNorm: 2, normType: 1 }), w]; } },
  { name: 'embedding scaleGradByFreq does not change the forward result', inputs: { tokens, table },
    torch: 'torch.nn.functional.embedding(tokens, table, padding_idx=1, scale_grad_by_freq=True)',
    run: ({ tokens, table }) => torch.embedding(tokens, table, { paddingIdx: 1, scaleGradByFreq: true }) },
  { name: 'embedding sparse false is the dense lookup', inputs: { tokens, table }, torch: 'torch.nn.functional.embedding(tokens, table, sparse=False)',
    run: ({ tokens, table }) => torch.embedding(tokens, table, { sparse: false, scaleGradByFreq: false }) },
];

const h = torch.randn([3, 5, 16]);
const gamma = torch.randn([16]);
const beta = torch.randn([16]);
const gamma2 = torch.randn([5, 16]);
const ln = 'torch.nn.functional.layer_norm';
const norms: RefCase[] = [
  { name: 'layerNorm weight only', inputs: { h, gamma }, torch: `${ln}(h, (16,), gamma)`, run: ({ h, gamma }) => torch.layerNorm(h, [16], gamma), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm bias only, eps 0.1', inputs: { h, beta }, torch: `${ln}(h, (16,), None, beta, eps=0.1)`, run: ({ h, beta }) => torch.layerNorm(h, [16], null, beta, 0.1), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm over two dims with affine', inputs: { h, gamma2 }, torch: `${ln}(h, (5, 16), gamma2, gamma2 * 0.5)`,
    run: ({ h, gamma2 }) => torch.layerNorm(h, [5, 16], gamma2, gamma2.mul(0.5)), rtol: 1e-5, atol: 1e-5 },
  { name: 'layerNorm float64', inputs: { h, gamma, beta }, torch: `${ln}(h.double(), (16,), gamma.double(), beta.double())`,
    run: ({ h, gamma, beta }) => torch.layerNorm(h.double(), [16], gamma.double(), beta.double()) },
  { name: 'layerNorm bfloat16', inputs: { hb: h.bfloat16(), gb: gamma.bfloat16(), bb: beta.bfloat16() }, torch: `${ln}(hb, (16,), gb, bb)`,
    run: ({ hb, gb, bb }) => torch.layerNorm(hb, [16], gb, bb), rtol: 2e-2, atol: 2e-2 },
  { name: 'nativeLayerNorm [out, mean, rstd] with affine', inputs: { h, gamma, beta }, torch: 'torch.native_layer_norm(h, (16,), gamma, beta, 1e-5)',
    run: ({ h, gamma, beta }) => torch.nativeLayerNorm(h, [16], gamma, beta, 1e-5), rtol: 1e-5, atol: 1e-5 },
  { name: 'nativeLayerNorm over two dims, no affine, eps 0.1', inputs: { h }, torch: 'torch.native_layer_norm(h, (5, 16), None, None, 0.1)',
    run: ({ h }) => torch.nativeLayerNorm(h, [5, 16], null, null, 0.1), rtol: 1e-5, atol: 1e-5 },
  { name: 'nativeLayerNorm float64', inputs: { h, gamma }, torch: 'torch.native_layer_norm(h.double(), (16,), gamma.double(), None, 1e-5)',
    run: ({ h, gamma }) => torch.nativeLayerNorm(h.double(), [16], gamma.double(), null, 1e-5) },
  { name: 'nativeLayerNorm of a 1-d input', inputs: { gamma }, torch: 'torch.native_layer_norm(gamma, (16,), None, None, 1e-5)',
    run: ({ gamma }) => torch.nativeLayerNorm(gamma, [16], null, null, 1e-5), rtol: 1e-5, atol: 1e-5 },
  // The statistics of a bfloat16 input: bfloat16 on cpu (float32 on cuda), compared here as float32.
  { name: 'nativeLayerNorm bfloat16 (statistics compared as float32)', inputs: { hb: h.bfloat16(), gb: gamma.bfloat16() },
    torch: '(lambda r: (r[0], r[1].float(), r[2].float()))(torch.native_layer_norm(hb, (16,), gb, None, 1e-5))',
    run: ({ hb, gb }) => torch.nativeLayerNorm(hb, [16], gb, null, 1e-5).map((t, i) => (i === 0 ? t : t.float())), rtol: 2e-2, atol: 2e-2 },
  { name: 'nn.functional.linear', inputs: { h, gamma2 }, torch: 'torch.nn.functional.linear(h, gamma2)', run: ({ h, gamma2 }) => torch.nn.functional.linear(h, gamma2), rtol: 1e-5, atol: 1e-5 },
  // PyTorch 1.13 has no rms_norm: the reference is its definition (eps None: the dtype's machine epsilon).
  { name: 'rmsNorm without weight, default eps', inputs: { h }, torch: 'h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + torch.finfo(h.dtype).eps)',
    run: ({ h }) => torch.rmsNorm(h, [16]), rtol: 1e-5, atol: 1e-5 },
  { name: 'rmsNorm over two dims with weight', inputs: { h, gamma2 }, torch: 'h * torch.rsqrt(h.pow(2).mean((-2, -1), keepdim=True) + 1e-5) * gamma2',
    run: ({ h, gamma2 }) => torch.rmsNorm(h, [5, 16], gamma2, 1e-5), rtol: 1e-5, atol: 1e-5 },
  { name: 'rmsNorm float64 eps', inputs: { h }, torch: '(lambda hd: hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float64).eps))(h.double())',
    run: ({ h }) => torch.rmsNorm(h.double(), [16]) },
];

// Attention: PyTorch 1.13 has no scaled_dot_product_attention; the reference is
// its definition, with the dropout mask the runtime draws after manualSeed(SEED).
const q = torch.randn([2, 3, 5, 8]);
const k = torch.randn([2, 3, 7, 8]);
const v = torch.randn([2, 3, 7, 6]);
const kc = torch.randn([2, 3, 5, 8]);
const vc = torch.randn([2, 3, 5, 6]);
const SEED = 2024;
torch.manualSeed(SEED);
const keep = torch.rand([2, 3, 5, 7]).ge(0.3);
torch.manualSeed(SEED);
const keepCausal = torch.rand([2, 3, 5, 5]).ge(0.5);
const boolMask = torch.rand([5, 7]).gt(0.3);
const floatMask = torch.randn([3, 5, 7]);
const scores = 'q @ k.transpose(-2, -1)';
const attention: RefCase[] = [
  { name: 'scaledDotProductAttention dropoutP', inputs: { q, k, v, keep },
    torch: `((${scores} * 8 ** -0.5).softmax(-1) * keep / 0.7) @ v`,
    run: ({ q, k, v }) => { torch.manualSeed(SEED); return torch.scaledDotProductAttention(q, k, v, { dropoutP: 0.3 }); } },
  { name: 'scaledDotProductAttention dropoutP, isCausal, scale', inputs: { q, k: kc, v: vc, keepCausal },
    torch: `((${scores} * 0.2).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), float('-inf')).softmax(-1) * keepCausal / 0.5) @ v`,
    run: ({ q, k, v }) => { torch.manualSeed(SEED); return torch.nn.functional.scaledDotProductAttention(q, k, v, { dropoutP: 0.5, isCausal: true, scale: 0.2 }); } },
  { name: 'scaledDotProductAttention dropoutP and a bool mask', inputs: { q, k, v, keep, boolMask },
    torch: `((${scores} * 8 ** -0.5).masked_fill(~boolMask, float('-inf')).softmax(-1) * keep / 0.7) @ v`,
    run: ({ q, k, v, boolMask }) => { torch.manualSeed(SEED); return torch.scaledDotProductAttention(q, k, v, { dropoutP: 0.3, attnMask: boolMask }); } },
  { name: 'scaledDotProductAttention isCausal with more keys than queries is aligned top left', inputs: { q, k, v },
    torch: `(${scores} * 8 ** -0.5).masked_fill(~torch.ones(5, 7, dtype=torch.bool).tril(), float('-inf')).softmax(-1) @ v`,
    run: ({ q, k, v }) => torch.scaledDotProductAttention(q, k, v, { isCausal: true }) },
  { name: 'scaledDotProductAttention additive float mask and scale', inputs: { q, k, v, floatMask },
    torch: `((${scores} * 0.5 + floatMask).softmax(-1)) @ v`,
    run: ({ q, k, v, floatMask }) => torch.scaledDotProductAttention(q, k, v, { attnMask: floatMask, scale: 0.5 }) },
  { name: 'scaledDotProductAttention dropoutP 1 gives zeros', inputs: { q, k, v }, torch: 'torch.zeros(2, 3, 5, 6)',
    run: ({ q, k, v }) => torch.scaledDotProductAttention(q, k, v, { dropoutP: 1 }) },
  { name: 'scaledDotProductAttention dropoutP out of range', inputs: { q }, torch: 'torch.nn.functional.dropout(q, 1.5)',
    run: ({ q }) => torch.scaledDotProductAttention(q, q, q, { dropoutP: 1.5 }), error: /scaledDotProductAttention: expected a probability in \[0, 1\] for dropoutP, got 1.5/ },
];

const a32 = torch.randint(-20, 20, [3, 4]).int();
const withZero = torch.tensor([[3, 0, -2, 5]], { dtype: 'int32' });
const noZero = torch.randint(1, 6, [3, 4]);
const u8 = torch.randint(0, 9, [3, 4]).byte();
const drop = torch.randn([4, 6]);
const dropouts: RefCase[] = [
  { name: 'dropout inplace writes into its input', inputs: { drop, keepDrop: (() => { torch.manualSeed(SEED); return torch.rand([4, 6]).ge(0.4); })() },
    torch: 'drop * keepDrop / 0.6', run: ({ drop }) => { torch.manualSeed(SEED); const c = drop.clone(); const r = torch.dropout(c, 0.4, true, true); return r === c ? c : torch.zeros([1]); } },
  { name: 'dropout inplace outside training leaves its input', inputs: { drop }, torch: 'drop', run: ({ drop }) => torch.dropout(drop.clone(), 0.4, false, true) },
  { name: 'argsort stable descending', inputs: { ties: torch.randint(0, 3, [3, 8]) }, torch: 'torch.argsort(ties, stable=True, dim=1, descending=True)', run: ({ ties }) => ties.argsort(1, true, true) },
];

const division: RefCase[] = [
  { name: 'div trunc by an integer zero', inputs: { a32, withZero }, torch: "torch.div(a32, withZero, rounding_mode='trunc')",
    run: ({ a32, withZero }) => a32.div(withZero, { roundingMode: 'trunc' }), error: /div \(roundingMode 'trunc'\): ZeroDivisionError: integer division by zero/ },
  { name: 'div floor by an integer zero', inputs: { a32, withZero }, torch: "torch.div(a32, withZero, rounding_mode='floor')",
    run: ({ a32, withZero }) => torch.div(a32, withZero, { roundingMode: 'floor' }), error: /ZeroDivisionError/ },
  { name: 'div floor by the number 0', inputs: { a32 }, torch: "torch.div(a32, 0, rounding_mode='floor')",
    run: ({ a32 }) => torch.div(a32, 0, { roundingMode: 'floor' }), error: /ZeroDivisionError/ },
  { name: 'remainder by an integer zero', inputs: { a32, withZero }, torch: 'torch.remainder(a32, withZero)',
    run: ({ a32, withZero }) => a32.remainder(withZero), error: /remainder: ZeroDivisionError: integer division by zero/ },
  { name: 'remainder uint8 by the number 0', inputs: { u8 }, torch: 'u8 % 0', run: ({ u8 }) => u8.remainder(0), error: /ZeroDivisionError/ },
  { name: 'remainder_ in place by zero leaves the tensor', inputs: { a32, withZero }, torch: 'a32.clone().remainder_(withZero)',
    run: ({ a32, withZero }) => a32.clone().remainder_(withZero), error: /ZeroDivisionError/ },
  { name: 'true division of integers by zero gives inf', inputs: { a32, withZero }, torch: 'a32 / withZero', run: ({ a32, withZero }) => a32.div(withZero) },
  { name: 'float floor division by zero gives inf', inputs: { a32, withZero }, torch: "torch.div(a32.float(), withZero, rounding_mode='floor')",
    run: ({ a32, withZero }) => a32.float().div(withZero, { roundingMode: 'floor' }) },
  { name: 'int64 floor division without zeros', inputs: { a32, noZero }, torch: "torch.div(a32, noZero, rounding_mode='floor')",
    run: ({ a32, noZero }) => a32.div(noZero, { roundingMode: 'floor' }) },
  { name: 'int64 remainder without zeros', inputs: { a32, noZero }, torch: 'a32 % -noZero', run: ({ a32, noZero }) => a32.remainder(noZero.neg()) },
];

/** The case groups, by name. */
export const nnCases: Record<string, RefCase[]> = {
  'crossEntropy and nllLoss': losses,
  'embedding': embeddings,
  'layerNorm and rmsNorm': norms,
  'scaledDotProductAttention': attention,
  'dropout in place, argsort stable': dropouts,
  'integer division by zero': division,
};
