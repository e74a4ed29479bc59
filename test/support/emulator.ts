/**
 * Test helpers: start the real emulator on a free port and talk to it over HTTP.
 *
 *   const emu = useEmulator();               // in a describe(): started before, closed after
 *   const res = await call(emu(), "POST", "/webhooks/v1/endpoints", { key: emu().keys.webhooks.admin, body });
 *   expect(res.status).toBe(201);
 */
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import type { LoggedRequest } from "../../emulator/core/request-log";

export function useEmulator(options: Parameters<typeof startEmulator>[0] = {}): () => RunningEmulator {
  let emu: RunningEmulator | undefined;
  beforeAll(async () => {
    emu = await startEmulator(options);
  });
  afterAll(async () => {
    await emu?.close();
  });
  return () => {
    if (!emu) throw new Error("emulator not started yet");
    return emu;
  };
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer`. */
  key?: string;
  body?: unknown;
  /** Raw body bytes or text, sent as is (overrides `body`). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP call to the emulator; the JSON body (if any) is parsed. */
export async function call<T = any>(emu: RunningEmulator, method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
  const res = await fetch(emu.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Control-plane call (`/_emulator/...`), failing the test on a non-2xx answer. */
export async function control<T = any>(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await call<T>(emu, method, `/_emulator${path}`, { body });
  if (res.status >= 300) throw new Error(`control ${method} ${path} -> ${res.status}: ${res.text}`);
  return res.body;
}

/** The API requests logged after `since` (a seq from `lastSeq`), for counting calls. */
export async function requestsSince(emu: RunningEmulator, since: number) {
  const { requests } = await control<{ requests: LoggedRequest[] }>(emu, "GET", `/requests?since=${since}`);
  return requests;
}

export async function lastSeq(emu: RunningEmulator): Promise<number> {
  return (await control<{ last_seq: number }>(emu, "GET", "/requests?since=999999999")).last_seq;
}

/** Asserts the shared error shape and returns `error` for further checks. */
export function errorOf(res: CallResult): { code: string; message: string; request_id: string; details?: any } {
  const error = res.body?.error;
  if (!error || typeof error.code !== "string" || typeof error.request_id !== "string") {
    throw new Error(`expected the error shape, got ${res.status}: ${res.text}`);
  }
  return error;
}
