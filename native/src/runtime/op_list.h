// The op list: one line per op. It drives everything written once for all
// ops: the OpId enum and kernel registry (runtime/op_registry.h), the checks
// of the generic binding (binding/op_binding.cc), and the TypeScript typings
// native/generated/op_list.ts (scripts/gen_native_tables.js; a test checks
// they agree with the addon's opList()).
//
//   X(name, inputs, outputs, attributes, dtypes, flags)
//
// name        C++ identifier, and the op's name in TypeScript (camelCase).
// inputs      comma-separated input names, in order. Suffixes:
//               name?  optional: may be absent (the kernel sees an undefined view, !defined())
//               name#  may be a JavaScript number instead of a tensor (OpCall::isScalar)
//               name*  variadic: any number >= 1 of tensors (last input only; cat, stack)
// outputs     comma-separated output names. The TypeScript function allocates
//             them (shape and dtype are its business) and passes them in.
// attributes  comma-separated `name:type` or `name:type=default` or `name:type?`
//             (optional, no default: OpCall::hasAttr is false when not given).
//             Types: double, int (int64), bool, string, ints (list of int64;
//             a default is `[]` or integers separated by spaces: `dims:ints=0 1`).
//             An attribute without default or `?` is required.
// dtypes      dtypes the first tensor input may have (the output's when there
//             are no inputs): all | numeric (all but bool) | float | int
//             (integer types, uint8 included) | bool | names joined by '|'
//             (float32|float16). The binding rejects others with
//             "<op>: dtype <d> is not supported (expected <dtypes>)".
// flags       words, space-separated:
//             "inplace": the outputs may be any views (strided, or the
//             very view that is input 0, for `x.add_(y)` on a slice). Without
//             it every output is a fresh contiguous tensor that overlaps no
//             input.
//             "queued": on CUDA the call may be launched by the device's
//             launch thread (runtime/launch_queue.h) after op() returned. Only
//             for kernels that read nothing but the call, launch on its
//             stream and neither allocate, draw random numbers, read device
//             memory on the host nor synchronize.
//             "cpuonly": no CUDA kernel, by design; the TypeScript function takes
//             another path for a CUDA tensor (the line's comment says which).
//             tensor.test.ts checks that every other op has one.
//
// What the binding guarantees before a kernel runs: every tensor input and
// output is on the call's device (a number input is on the host, see
// OpCall::isScalar), lies inside its storage, has the declared count; the
// TypeScript function has cast tensor inputs to the dtypes the kernel
// expects (for arithmetic: one common dtype, PyTorch's promotion) and
// broadcast nothing — broadcasting is the kernel's, by strides (an input of
// fewer dims is aligned to the right of the output; a size-1 dim repeats).
//
// Adding an op: a line here, kernels registered with TSGPU_REGISTER_KERNEL in
// native/src/ops/cpu/*.cc and native/src/ops/cuda/*.cu (found by the build, no
// CMake edit), and a TypeScript function in native/ops/*.ts calling
// runOp('<name>', outputs, inputs, attrs) (native/ops/dispatch.ts). Plain unary
// lines need no TypeScript (scripts/gen_unary_ops.js); a plain binary line needs
// one row in scripts/gen_binary_ops.js (native/src/ops/README.md).
#pragma once

// clang-format off
#define TSGPU_FOR_EACH_OP(X) \
  /* out <- src, converting dtype, any strides; the base of contiguous(), to(dtype), clone(), copy_() */ \
  X(copy,      "src",           "out", "",                                  "all",     "inplace queued") \
  /* out <- value (cast to out's dtype) */ \
  X(fill,      "",              "out", "value:double",                      "all",     "inplace queued") \
  /* out <- start + step * i (row-major element index i); arange, linspace */ \
  X(arange,    "",              "out", "start:double,step:double",          "numeric", "") \
  /* out <- uniform in [low, high) from the generator (Philox; same numbers on cpu and cuda) */ \
  X(uniform,   "",              "out", "low:double=0,high:double=1",        "float",   "inplace") \
  /* out <- normal(mean, std) from the generator */ \
  X(normal,    "",              "out", "mean:double=0,std:double=1",        "float",   "inplace") \
  /* out <- integers uniform in [low, high) from the generator */ \
  X(randint,   "",              "out", "low:int,high:int",                  "numeric", "inplace") \
  /* out <- self + alpha * other, broadcast */ \
  X(add,       "self,other#",   "out", "alpha:double=1",                    "numeric", "inplace queued") \
  /* out <- f(self) elementwise (integer inputs are cast to a float dtype first) */ \
  X(exp,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(expm1,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(log,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(log1p,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(log2,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(sqrt,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(rsqrt,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(reciprocal, "self",          "out", "",                                  "float",   "inplace queued") \
  X(sin,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(cos,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(tanh,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(sigmoid,   "self",          "out", "",                                  "float",   "inplace queued") \
  X(silu,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(gelu,      "self",          "out", "approximate:string=none",           "float",   "inplace queued") \
  X(softplus,  "self",          "out", "beta:double=1,threshold:double=20", "float",   "inplace queued") \
  /* out <- f(self) elementwise, any numeric dtype (floor/ceil/round/trunc: identity on integers) */ \
  X(neg,       "self",          "out", "",                                  "numeric", "inplace queued") \
  X(abs,       "self",          "out", "",                                  "numeric", "inplace queued") \
  X(sign,      "self",          "out", "",                                  "numeric", "inplace queued") \
  X(relu,      "self",          "out", "",                                  "numeric", "inplace queued") \
  X(floor,     "self",          "out", "",                                  "numeric", "inplace queued") \
  X(ceil,      "self",          "out", "",                                  "numeric", "inplace queued") \
  X(round,     "self",          "out", "",                                  "numeric", "inplace queued") \
  X(trunc,     "self",          "out", "",                                  "numeric", "inplace queued") \
  /* out(bool) <- !self */ \
  X(logicalNot, "self",          "out", "",                                  "all",     "inplace queued") \
  /* out <- self - alpha * other; self * other; self / other (roundingMode trunc|floor, else true division) */ \
  X(sub,       "self,other#",   "out", "alpha:double=1",                    "numeric", "inplace queued") \
  X(mul,       "self#,other#",  "out", "",                                  "all",     "inplace queued") \
  X(div,       "self#,other#",  "out", "roundingMode:string?",              "numeric", "inplace queued") \
  /* out <- self ** exponent; Python-style remainder (sign of other); NaN-propagating maximum/minimum */ \
  X(pow,       "self#,exponent#", "out", "",                                  "numeric", "inplace queued") \
  X(remainder, "self#,other#",  "out", "",                                  "numeric", "inplace queued") \
  X(maximum,   "self,other#",   "out", "",                                  "all",     "queued") \
  X(minimum,   "self,other#",   "out", "",                                  "all",     "queued") \
  /* out(bool) <- comparison / logical op of self and other (inputs of one common dtype) */ \
  X(eq,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(ne,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(lt,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(le,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(gt,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(ge,        "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(logicalAnd, "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(logicalOr, "self,other#",   "out", "",                                  "all",     "inplace queued") \
  X(logicalXor, "self,other#",   "out", "",                                  "all",     "inplace queued") \
  /* out <- condition ? self : other (condition bool; self/other one dtype or numbers) */ \
  X(where,     "condition,self#,other#", "out", "",                                  "bool",    "queued") \
  /* out <- min(max(self, min), max); a bound may be absent, a number or a tensor */ \
  X(clamp,     "self,min?#,max?#", "out", "",                                  "numeric", "inplace queued") \
  /* out <- self + weight * (end - self); self + value * tensor1 * tensor2; self + value * tensor1 / tensor2 */ \
  X(lerp,      "self,end,weight#", "out", "",                                  "float",   "inplace queued") \
  X(addcmul,   "self,tensor1,tensor2", "out", "value:double=1",                    "numeric", "inplace queued") \
  X(addcdiv,   "self,tensor1,tensor2", "out", "value:double=1",                    "float",   "inplace queued") \
  /* out <- reduction of self over dims (all dims when empty); out has the keepdim shape or the kept dims only. */ \
  /* sum/prod of integers or bool write int64; all/any write bool; argmax/argmin write int64 (flat index over all dims) */ \
  X(sum,       "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(prod,      "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(mean,      "self",          "out", "dims:ints=[]",                      "float",   "") \
  X(amax,      "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(amin,      "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(all,       "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(any,       "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(var,       "self",          "out", "dims:ints=[],correction:double=1",  "float",   "") \
  X(std,       "self",          "out", "dims:ints=[],correction:double=1",  "float",   "") \
  X(norm,      "self",          "out", "dims:ints=[],p:double=2",           "float",   "") \
  X(logsumexp, "self",          "out", "dims:ints=[]",                      "float",   "") \
  X(argmax,    "self",          "out", "dims:ints=[]",                      "all",     "") \
  X(argmin,    "self",          "out", "dims:ints=[]",                      "all",     "") \
  /* values, indices (int64) <- max / min of self along dim (first occurrence; NaN counts as the extreme) */ \
  X(maxDim,    "self",          "values,indices", "dim:int",                           "all",     "") \
  X(minDim,    "self",          "values,indices", "dim:int",                           "all",     "") \
  /* out <- softmax / log-softmax of self along dim (computed in float for half and bfloat16) */ \
  X(softmax,   "self",          "out", "dim:int",                           "float",   "") \
  X(logSoftmax, "self",          "out", "dim:int",                           "float",   "") \
  /* out <- running sum along dim (integers and bool write int64) */ \
  X(cumsum,    "self",          "out", "dim:int",                           "all",     "") \
  /* out <- self gathered along dim at index (int64, index's shape); indexSelect and embedding use it */ \
  X(gather,    "self,index",    "out", "dim:int",                           "all",     "") \
  /* out (a copy of self, written in place) <- src at index along dim; scatterAdd adds (atomically on cuda) */ \
  X(scatter,   "self,index,src#", "out", "dim:int",                         "all",     "inplace") \
  X(scatterAdd, "self,index,src#", "out", "dim:int",                        "numeric", "inplace") \
  /* out (self, in place) <- src combined at index along dim by reduce (sum|prod|amax|amin), starting from self's values or, without includeSelf, from the identity (atomically on cuda) */ \
  X(scatterReduce, "self,index,src#", "out", "dim:int,reduce:string,includeSelf:bool=true", "all", "inplace") \
  /* out <- normalization of each row of normalizedNumel trailing elements (contiguous self, weight, bias); layerNorm also writes each row's mean and rstd = 1 / sqrt(var + eps) (contiguous, one per row, float64 for float64 and float32 otherwise) */ \
  X(layerNorm, "self,weight?,bias?", "out,mean,rstd", "normalizedNumel:int,eps:double=1e-5", "float", "") \
  X(rmsNorm,   "self,weight?",  "out", "normalizedNumel:int,eps:double",   "float",   "") \
  /* values, indices (int64) <- self sorted along dim (NaN largest; stable); k >= 0 keeps the first k (topk) */ \
  X(sort,      "self",          "values,indices", "dim:int,descending:bool=false,k:int=-1", "numeric", "") \
  /* out [..., m, n] <- alpha * self [..., m, k] @ mat2 [..., k, n] + beta * out (out read only when beta != 0); batch dims broadcast by strides */ \
  X(gemm,      "self,mat2",     "out", "alpha:double=1,beta:double=0,allowTf32:bool=false", "float", "") \
  /* weights <- softmax(scale * query @ key^T, masked by mask (bool: keep where true; float: added) and causal); out <- weights @ value */ \
  X(attention, "query,key,value,mask?", "out,weights", "scale:double,causal:bool=false,allowTf32:bool=false", "float", "") \
  /* out <- f(self) elementwise, more floating functions (appended here so that the ids above stay) */ \
  X(tan,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(asin,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(acos,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(atan,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(sinh,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(cosh,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(asinh,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(acosh,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(atanh,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(log10,     "self",          "out", "",                                  "float",   "inplace queued") \
  X(exp2,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(erf,       "self",          "out", "",                                  "float",   "inplace queued") \
  X(erfc,      "self",          "out", "",                                  "float",   "inplace queued") \
  X(erfinv,    "self",          "out", "",                                  "float",   "inplace queued") \
  /* out <- ~self (integers), !self (bool) */ \
  X(bitwiseNot, "self",         "out", "",                                  "int|bool", "inplace queued") \
  /* out <- f(self, other), broadcast: C's fmod (sign of self), atan2(self, other), hypot, copysign (floating) */ \
  X(fmod,      "self#,other#",  "out", "",                                  "numeric", "inplace queued") \
  X(atan2,     "self,other#",   "out", "",                                  "float",   "inplace queued") \
  X(hypot,     "self,other#",   "out", "",                                  "float",   "inplace queued") \
  X(copysign,  "self,other#",   "out", "",                                  "float",   "inplace queued") \
  /* out <- bitwise and / or / xor (integers and bool), shifts (integers; PyTorch's results for shifts out of range) */ \
  X(bitwiseAnd, "self,other#",   "out", "",                                  "int|bool", "inplace queued") \
  X(bitwiseOr, "self,other#",   "out", "",                                  "int|bool", "inplace queued") \
  X(bitwiseXor, "self,other#",   "out", "",                                  "int|bool", "inplace queued") \
  X(bitwiseLeftShift, "self#,other#",  "out", "",                                  "int",     "inplace queued") \
  X(bitwiseRightShift, "self#,other#",  "out", "",                                  "int",     "inplace queued") \
  /* out <- running product along dim (integers and bool write int64); running log(sum(exp)) along dim */ \
  X(cumprod,   "self",          "out", "dim:int",                           "all",     "") \
  X(logcumsumexp, "self",       "out", "dim:int",                           "float",   "") \
  /* values, indices (int64) <- running max / min along dim and where it was (the last of equal values; NaN wins) */ \
  X(cummax,    "self",          "values,indices", "dim:int",                "numeric", "") \
  X(cummin,    "self",          "values,indices", "dim:int",                "numeric", "") \
  /* flash attention, no L×S matrix in memory: out <- softmax(scale · query @ keyᵀ, causal: key j hidden from query i when j > i) @ value, logsumexp (float32 [..., L]) <- log Σ_j exp(scale · q_i·k_j) of each row; query [..., L, D], key and value [..., S, D] of one batch shape, D <= 128 */ \
  X(flashAttention, "query,key,value", "out,logsumexp", "scale:double,causal:bool=false", "float", "") \
  /* its backward: gradQuery, gradKey, gradValue from gradOut, the inputs, out and logsumexp; workspace: float32 of at least [..., L, D + 1] elements (rowsum(gradOut ∘ out) and gradQuery's float32 sums) */ \
  X(flashAttentionBackward, "gradOut,query,key,value,out,logsumexp", "gradQuery,gradKey,gradValue,workspace", "scale:double,causal:bool=false", "float", "") \
  /* out [N, C*KH*KW, OH*OW] <- the sliding windows of self [N, C, H, W] (convolution by GEMM, pools); padValue outside self */ \
  X(im2col,    "self",          "out", "kernel:ints,stride:ints,padding:ints,dilation:ints,outputSize:ints,padValue:double=0", "float", "queued") \
  /* out [N, C, H, W] <- the adjoint of im2col: each element the sum of the window entries of self [N, C*KH*KW, OH*OW] that im2col would copy it to */ \
  X(col2im,    "self",          "out", "kernel:ints,stride:ints,padding:ints,dilation:ints,outputSize:ints,imageSize:ints", "float", "queued") \
  /* conv2d as one op: on cuda by cuDNN (ops/cuda/cudnn_conv.cu), on cpu by direct loops, the reference (ops/cpu/convolution.cc; conv2d on cpu takes the faster im2col and matmul path): out [N, O, OH, OW] <- self [N, C, H, W] cross-correlated with weight [O, C/groups, KH, KW]; operands dense NCHW or NHWC; benchmark: time every algorithm once per shape and keep the fastest; deterministic: only deterministic algorithms; allowTf32: float32 may run on TF32 tensor cores */ \
  X(convolution, "self,weight", "out", "stride:ints,padding:ints,dilation:ints,groups:int=1,benchmark:bool=false,deterministic:bool=false,allowTf32:bool=true", "float", "inplace") \
  /* its gradient of the input: gradInput [N, C, H, W] <- gradOut [N, O, OH, OW] and weight, (cuDNN's backward data) */ \
  X(convolutionBackwardInput, "gradOut,weight", "gradInput", "stride:ints,padding:ints,dilation:ints,groups:int=1,benchmark:bool=false,deterministic:bool=false,allowTf32:bool=true", "float", "inplace") \
  /* its gradient of the weight: gradWeight [O, C/groups, KH, KW] <- gradOut and the input self, (cuDNN's backward filter) */ \
  X(convolutionBackwardWeight, "gradOut,self", "gradWeight", "stride:ints,padding:ints,dilation:ints,groups:int=1,benchmark:bool=false,deterministic:bool=false,allowTf32:bool=true", "float", "inplace") \
  /* loss [N], lse [N] (float32 for half and bfloat16 logits, else the logits' dtype) <- cross entropy of each row of contiguous logits */ \
  /* self [N, C] at int64 class indices target [N]: (1 - labelSmoothing)·w[y]·(lse - x[y]) + labelSmoothing/C·Σ_c w_c·(lse - x_c), 0 where target == ignoreIndex */ \
  X(crossEntropyLoss, "self,target,weight?", "loss,lse", "ignoreIndex:int=-100,labelSmoothing:double=0", "float", "") \
  /* out [N, C] (self's dtype) <- gradLoss[n] · ∂loss[n]/∂self[n, :] from the saved lse, in one pass (no probabilities kept) */ \
  X(crossEntropyBackward, "gradLoss,self,target,lse,weight?", "out", "ignoreIndex:int=-100,labelSmoothing:double=0", "float", "") \
  /* out <- the gradient of softmax (output y: y·(grad - Σ grad·y)) / logSoftmax (grad - exp(y)·Σ grad) over contiguous last-dim rows */ \
  X(softmaxBackward, "grad,output", "out", "", "float", "") \
  X(logSoftmaxBackward, "grad,output", "out", "", "float", "") \
  /* Adam / AdamW update of many parameters in one call: tensors = params, grads, exp_avgs, exp_avg_sqs (, max_exp_avg_sqs with amsgrad), */ \
  /* count each, written in place; out is params[0] (the kernels write every parameter through tensors). Math in float32 (float64 for float64). */ \
  X(adamStep, "tensors*", "out", "count:int,lr:double,beta1:double,beta2:double,eps:double,weightDecay:double=0,step:double,amsgrad:bool=false,maximize:bool=false,decoupledWeightDecay:bool=false", "float", "inplace") \
  /* SGD update of many parameters: tensors = params, grads (, momentum_buffers with momentum != 0); firstStep copies the gradient into the buffers */ \
  X(sgdStep, "tensors*", "out", "count:int,lr:double,momentum:double=0,dampening:double=0,weightDecay:double=0,nesterov:bool=false,maximize:bool=false,firstStep:bool=false", "float", "inplace") \
  /* batch norm of self [N, C, *] (contiguous; ops/common/batch_norm_kernels.h): out <- (self - mean) * invstd * weight + bias per channel (dim 1); */ \
  /* training: mean and biased variance of each channel over N and *, runningMean/runningVar (when given) updated in place with momentum (the variance unbiased); */ \
  /* eval: the running statistics. saveMean, saveInvstd [C] (float64 for float64, else float32) <- the mean and 1 / sqrt(var + eps) used. */ \
  /* weight, bias, runningMean, runningVar: contiguous [C], self's dtype or float32 for a float16/bfloat16 self (computed in float32) */ \
  X(batchNormForward, "self,weight?,bias?,runningMean?,runningVar?", "out,saveMean,saveInvstd", "training:bool,momentum:double=0.1,eps:double=1e-5", "float", "") \
  /* its gradient: gradWeight, gradBias [C] (saveMean's dtype) <- sum of gradOut * (self - saveMean) * saveInvstd and of gradOut per channel; */ \
  /* gradInput (self's shape, or 0 elements: not computed) <- training: weight * invstd * (gradOut - mean(gradOut) - xhat * mean(gradOut * xhat)); eval: gradOut * weight * invstd */ \
  X(batchNormBackward, "gradOut,self,weight?,saveMean,saveInvstd", "gradInput,gradWeight,gradBias", "training:bool", "float", "") \
  /* out [count, ndim] (int64) <- the coordinates of the nonzero elements of contiguous self, row-major order (count: from self.ne(0).sum(); cpu only: cuda runs it on a host copy) */ \
  X(nonzero, "self", "out", "", "all", "cpuonly") \
  /* out <- self where self > 0, else negativeSlope * self (NaN stays NaN) */ \
  X(leakyRelu, "self", "out", "negativeSlope:double=0.01", "float", "inplace queued") \
  /* out <- log(c / (1 - c)), c = self clamped to [eps, 1 - eps] when eps >= 0 (cpu only: the TypeScript function composes it on cuda) */ \
  X(logit, "self", "out", "eps:double=-1", "float", "cpuonly") \
  /* values, indices (int64; self's shape, size 1 along dim) <- per row along dim the element a stable sort (NaN largest) puts at one position: kthvalue the k-th (k from 1), */ \
  /* medianDim the lower middle or the row's first NaN, nanmedianDim the lower middle of the elements that are not NaN (cpu only: the TypeScript functions sort on cuda) */ \
  X(kthvalue,  "self",          "values,indices", "dim:int,k:int",     "numeric", "cpuonly") \
  X(medianDim, "self",          "values,indices", "dim:int",           "numeric", "cpuonly") \
  X(nanmedianDim, "self",       "values,indices", "dim:int",           "numeric", "cpuonly")
// clang-format on
