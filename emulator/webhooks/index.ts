/**
 * The Webhooks product (spec document 2), served under `/webhooks`.
 * One file per resource family; each registers its own routes and keeps its own state.
 */
import type { ProductModule } from "../core/app";
import { registerEndpoints } from "./endpoints";
import { registerEvents } from "./events";
import { registerDeliveries } from "./deliveries";
import { registerEventTypes } from "./event-types";
import { registerSources, registerSourcesControl } from "./sources";
import { registerIngest } from "./ingest";
import { registerCaptures } from "./captures";
import { registerOperationalEndpoints } from "./operational-endpoints";
import { registerWorkspace } from "./workspace";
import { registerEndpointControl } from "./endpoint-control";

export const webhooksModule: ProductModule = {
  prefix: "/webhooks",
  routes(app, ctx) {
    for (const register of [
      registerEndpoints, registerEvents, registerDeliveries, registerEventTypes, registerSources,
      registerIngest, registerCaptures, registerOperationalEndpoints, registerWorkspace,
    ]) register(app, ctx);
  },
  control(app, ctx) {
    registerEndpointControl(app, ctx);
    registerSourcesControl(app, ctx);
  },
};
