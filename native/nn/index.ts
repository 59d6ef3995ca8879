/**
 * torch.nn: Module and Parameter, the layers, nn.init, nn.utils and
 * nn.functional (functional.ts: ops/nn_functional.ts, with autocast's
 * casting in front of the ops it covers, and embedding's backward rules).
 */
import { functional } from './functional';
import * as init from './init';
import * as utils from './utils';

export { Module, ForwardHook, ForwardPreHook, IncompatibleKeys, NamedOptions, ModuleToOptions } from './module';
export { Parameter, labelTensor } from './parameter';
export { Linear, Identity, LinearOptions } from './modules/linear';
export { ReLU, GELU, SiLU, Tanh, Softmax, Dropout } from './modules/activation';
export { LayerNorm, RMSNorm, LayerNormOptions, RMSNormOptions } from './modules/normalization';
export { Embedding, EmbeddingLayerOptions } from './modules/sparse';
export { Sequential, ModuleList, ModuleDict } from './modules/container';
export { MultiheadAttention, MultiheadAttentionOptions, MultiheadAttentionForwardOptions } from './modules/attention';
export { CrossEntropyLoss, MSELoss, CrossEntropyLossOptions } from './modules/loss';
export { Conv2d, ConvTranspose2d, Conv2dLayerOptions, ConvTranspose2dLayerOptions } from './modules/conv';
export { BatchNorm2d, BatchNormLayerOptions } from './modules/batchnorm';
export { MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Flatten } from './modules/pooling';
export { FactoryOptions } from './modules/args';
export { functional, init, utils };
