/** The inboxes product, served under `/inboxes`. */
import type { ProductModule } from "../core/app";

export const inboxesModule: ProductModule = {
  prefix: "/inboxes",
  routes() {
    // Not implemented yet.
  },
};
