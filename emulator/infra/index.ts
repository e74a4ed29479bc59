/**
 * The Infrastructure API (spec document 3: quotas, quota requests, cursor lists
 * of VMs and snapshots), served under `/infra`; its control plane under
 * `/_emulator/infra`. One file per resource family.
 */
import type { ProductModule } from "../core/app";
import { infraControl } from "./control";
import { registerQuotaRequests } from "./quota-requests";
import { registerQuotas } from "./quotas";
import { registerSnapshots } from "./snapshots";
import { registerVms } from "./vms";

export const infraModule: ProductModule = {
  prefix: "/infra",
  routes(app, ctx) {
    registerQuotas(app, ctx);
    registerQuotaRequests(app, ctx);
    registerVms(app, ctx);
    registerSnapshots(app, ctx);
  },
  control: infraControl,
};
