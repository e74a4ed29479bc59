/**
 * The product modules the emulator serves. Each lives in its own folder and owns
 * its routes, its state and its control-plane additions.
 */
import type { ProductModule } from "./core/app";
import { webhooksModule } from "./webhooks";
import { inboxesModule } from "./inboxes";
import { infraModule } from "./infra";

export const productModules: ProductModule[] = [webhooksModule, inboxesModule, infraModule];
