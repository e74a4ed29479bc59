/** Helpers of the Inboxes suites: fresh workspaces, sessions, inboxes. */
import type { RunningEmulator, DefaultKeys } from "../../../emulator";
import { call, control } from "../../support/emulator";

export async function workspace(emu: RunningEmulator, plan: "free" | "pro" | "enterprise" = "pro"): Promise<DefaultKeys> {
  return control<DefaultKeys>(emu, "POST", "/workspaces", { plan });
}

export async function sessionCookie(emu: RunningEmulator, workspaceId: string, expired = false): Promise<string> {
  return (await control<{ cookie: string }>(emu, "POST", "/sessions", { workspace_id: workspaceId, expired })).cookie;
}

export async function createInbox(emu: RunningEmulator, key: string, body: Record<string, unknown> = {}) {
  const res = await call(emu, "POST", "/inboxes/v1/inboxes", { key, body });
  if (res.status !== 201) throw new Error(`create inbox -> ${res.status}: ${res.text}`);
  return res.body as { id: string; address: string | null; slug: string | null; url: string | null; expires_at: string | null; [k: string]: unknown };
}

export async function sendEmail(emu: RunningEmulator, inboxId: string, body: Record<string, unknown> = {}) {
  return call(emu, "POST", "/_emulator/inboxes/messages", { body: { inbox_id: inboxId, subject: "hi", text: "hello", ...body } });
}
