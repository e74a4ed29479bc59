/**
 * The Inboxes product (spec document 3), served under `/inboxes`; its control
 * plane under `/_emulator/inboxes`. One file per resource family.
 */
import type { ProductModule } from "../core/app";
import { registerAccount } from "./account";
import { inboxesControl } from "./control";
import { registerInboxes } from "./inboxes";
import { registerMessages } from "./messages";

export const inboxesModule: ProductModule = {
  prefix: "/inboxes",
  routes(app, ctx) {
    registerInboxes(app, ctx);
    registerMessages(app, ctx);
    registerAccount(app, ctx);
  },
  control: inboxesControl,
};
