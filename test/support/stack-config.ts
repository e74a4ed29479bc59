/** The stack config of every product for a workspace of the emulator (the provider's default profile). */
import type { RunningEmulator } from "../../emulator";

export interface ProductKeys {
  webhooks: { admin: string };
  inboxes: { admin: string };
  infra: { admin: string };
}

export function allProductsConfig(emu: RunningEmulator, ws: ProductKeys): Record<string, string> {
  return {
    "svc:webhooksUrl": emu.webhooksUrl,
    "svc:webhooksApiKey": ws.webhooks.admin,
    "svc:inboxesUrl": emu.inboxesUrl,
    "svc:inboxesApiKey": ws.inboxes.admin,
    "svc:infraUrl": emu.infraUrl,
    "svc:infraApiKey": ws.infra.admin,
  };
}
