/**
 * torch.optim: SGD, Adam, AdamW (single-tensor updates, in place, under
 * noGrad) and optim.lrScheduler.
 */
import * as lrScheduler from './lr_scheduler';

export { Optimizer, ParamGroup, ParamsArg, ParamState, OptimizerStateDict } from './optimizer';
export { SGD, SGDOptions } from './sgd';
export { Adam, AdamW, AdamOptions } from './adam';
export { lrScheduler };
