/**
 * Helpers for the Webhooks endpoints/events/deliveries suites: a fresh workspace
 * per test (so tests never share state), calls under `/webhooks`, and one
 * assertion for the error shape with its code, reason and other details.
 */
import { expect } from "vitest";
import type { RunningEmulator } from "../../../emulator";
import { call, control, errorOf, type CallOptions, type CallResult } from "../../support/emulator";

export interface Workspace {
  workspace_id: string;
  project_id: string;
  webhooks: { admin: string; read: string; publish: string };
}

export const wh = (emu: RunningEmulator, method: string, path: string, opts: CallOptions = {}) => call(emu, method, `/webhooks${path}`, opts);

export async function newWorkspace(emu: RunningEmulator, plan: "free" | "pro" | "enterprise" = "free"): Promise<Workspace> {
  return control<Workspace>(emu, "POST", "/workspaces", { plan });
}

let counter = 0;
export async function createEndpoint(emu: RunningEmulator, key: string, body: Record<string, unknown> = {}) {
  const res = await wh(emu, "POST", "/v1/endpoints", { key, body: { url: `https://hooks-${++counter}.example.com/in`, subscriptions: [{ event_type: "**" }], ...body } });
  if (res.status !== 201) throw new Error(`create endpoint -> ${res.status}: ${res.text}`);
  return res.body as { id: string; secret: string; url: string; project_id: string; [k: string]: unknown };
}

export async function publish(emu: RunningEmulator, key: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return wh(emu, "POST", "/v1/events", { key, body: { payload: {}, ...body }, headers });
}

/** Asserts status, code and the whole `details` object. */
export function expectError(res: CallResult, status: number, code: string, details?: Record<string, unknown>) {
  const error = errorOf(res);
  expect({ status: res.status, code: error.code }).toEqual({ status, code });
  expect(error.details).toEqual(details);
  return error;
}

/** Asserts a 422 whose entries are exactly `entries` (loc, type, params). */
export function expectValidation(res: CallResult, entries: { loc: (string | number)[]; type: string; params?: Record<string, unknown> }[]) {
  const error = errorOf(res);
  expect({ status: res.status, code: error.code }).toEqual({ status: 422, code: "validation_error" });
  const got = (error.details.errors as { loc: unknown; type: string; params?: unknown }[]).map((e) => (e.params === undefined ? { loc: e.loc, type: e.type } : { loc: e.loc, type: e.type, params: e.params }));
  expect(got).toEqual(entries);
}

export const moveDeliveries = (emu: RunningEmulator, endpointId: string, body: Record<string, unknown>) =>
  control<{ moved: number; deliveries: { id: string; status: string }[] }>(emu, "POST", `/webhooks/endpoints/${endpointId}/deliveries`, body);
