/**
 * gradcheck cases (float64, cpu) of the convolution and pooling family: the
 * rows im2col and col2im directly, and every function made of them
 * (conv2d, convTranspose2d, the pools, interpolate), the convolution ops
 * that conv2d and convTranspose2d call on cuDNN (here through their cpu
 * kernels), and batchNorm's kernel row (training, evaluation).
 * Spread into GRAD_CASES (gradcheck_cases.ts).
 */
import * as torch from '../../../native/index';
import { im2col, col2im } from '../../../native/ops/conv';
import { cudnnConvolution, cudnnConvolutionBackwardInput, cudnnConvolutionBackwardWeight } from '../../../native/ops/cudnn';
import type { GradCase } from './gradcheck_cases';

const F = torch.nn.functional;
const geometry = { kernel: [2, 3] as [number, number], stride: [2, 1] as [number, number], padding: [1, 1] as [number, number], dilation: [1, 2] as [number, number], outputSize: [3, 3] as [number, number] };

export const CONV_GRAD_CASES: GradCase[] = [
  { name: 'im2col (padding, stride, dilation)', rows: ['im2col'], inputs: [[2, 2, 4, 5]], fn: (x) => im2col(x, geometry) },
  { name: 'col2im (sums of overlapping windows)', rows: ['col2im'], inputs: [[2, 2 * 6, 9]], fn: (c) => col2im(c, geometry, [4, 5]) },
  { name: 'conv2d with bias, stride, padding, dilation, groups', rows: ['im2col', 'gemm'], inputs: [[2, 4, 6, 5], [4, 2, 3, 2], [4]],
    fn: (x, w, b) => F.conv2d(x, w, b, { stride: [2, 1], padding: 1, dilation: [1, 2], groups: 2 }) },
  { name: "conv2d padding 'same', unbatched", rows: ['im2col', 'gemm'], inputs: [[2, 5, 4], [3, 2, 2, 3]], fn: (x, w) => F.conv2d(x, w, null, { padding: 'same' }) },
  { name: 'convTranspose2d stride 2, outputPadding 1, groups 2', rows: ['col2im', 'gemm'], inputs: [[1, 4, 3, 3], [4, 1, 3, 2], [2]],
    fn: (x, w, b) => F.convTranspose2d(x, w, b, { stride: 2, padding: 1, outputPadding: 1, groups: 2 }) },
  { name: 'convolution op (stride, padding, dilation, groups)', rows: ['convolution'], inputs: [[2, 4, 6, 5], [4, 2, 3, 2]],
    fn: (x, w) => cudnnConvolution(x, w, { stride: [2, 1], padding: [1, 1], dilation: [1, 2], groups: 2 }, [3, 5]) },
  { name: "convolutionBackwardInput op (convTranspose2d's forward)", rows: ['convolutionBackwardInput'], inputs: [[1, 4, 3, 3], [4, 1, 3, 2]],
    fn: (g, w) => cudnnConvolutionBackwardInput(g, w, { stride: [2, 2], padding: [1, 1], dilation: [1, 1], groups: 2 }, [1, 2, 5, 4]) },
  { name: 'convolutionBackwardWeight op (bilinear in gradOut and the input)', rows: ['convolutionBackwardWeight'], inputs: [[1, 4, 3, 3], [1, 2, 5, 4]],
    fn: (g, x) => cudnnConvolutionBackwardWeight(g, x, { stride: [2, 2], padding: [1, 1], dilation: [1, 1], groups: 2 }, [4, 1, 3, 2]) },
  { name: 'maxPool2d padding, ceilMode', rows: ['im2col', 'maxDim'], inputs: [[1, 2, 5, 6]], fn: (x) => F.maxPool2d(x, 3, { stride: 2, padding: 1, ceilMode: true }) },
  { name: 'avgPool2d without countIncludePad', rows: ['im2col', 'sum'], inputs: [[1, 2, 5, 5]], fn: (x) => F.avgPool2d(x, 3, { stride: 2, padding: 1, countIncludePad: false }) },
  { name: 'adaptiveAvgPool2d 5x7 to 3x4', rows: ['gemm'], inputs: [[1, 2, 5, 7]], fn: (x) => F.adaptiveAvgPool2d(x, [3, 4]) },
  { name: 'interpolate bilinear and nearest', rows: ['gemm'], inputs: [[1, 2, 3, 4]],
    fn: (x) => F.interpolate(x, { size: [5, 6], mode: 'bilinear' }).add(F.interpolate(x, { size: [5, 6] })) },
  { name: 'batchNorm training with weight and bias', rows: ['batchNormForward'], inputs: [[3, 2, 3, 2], [2], [2]],
    fn: (x, w, b) => F.batchNorm(x, null, null, w, b, { training: true }) },
  { name: 'batchNorm training, 2-D input, no affine, running statistics updated', rows: ['batchNormForward'], inputs: [[5, 3]],
    fn: (x) => F.batchNorm(x, torch.zeros([3], { dtype: 'float64' }), torch.ones([3], { dtype: 'float64' }), null, null, { training: true, momentum: 0.2 }) },
  { name: 'batchNorm eval (running statistics) with weight and bias, 3-D input', rows: ['batchNormForward'],
    inputs: [[3, 2, 4], [2], [2]],
    fn: (x, w, b) => F.batchNorm(x, torch.tensor([0.3, -0.2], { dtype: 'float64' }), torch.tensor([0.7, 1.6], { dtype: 'float64' }), w, b, { eps: 1e-3 }) },
];
