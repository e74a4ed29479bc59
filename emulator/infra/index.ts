/** The infra product, served under `/infra`. */
import type { ProductModule } from "../core/app";

export const infraModule: ProductModule = {
  prefix: "/infra",
  routes() {
    // Not implemented yet.
  },
};
