/**
 * torch.vision: torchvision-style model builders (models/), random
 * initialization as torchvision's; no weights are downloaded.
 */
import { resnet18, resnet34, resnet50, resnet101, resnet152, ResNet, BasicBlock, Bottleneck } from './models/resnet';

export type { ResNetOptions } from './models/resnet';

/** torch.vision.models: resnet18/34/50/101/152 and their classes. */
export const models = { resnet18, resnet34, resnet50, resnet101, resnet152, ResNet, BasicBlock, Bottleneck };
