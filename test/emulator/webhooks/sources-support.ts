/**
 * Helpers for the sources, ingest and captures suites: create a source, and send a
 * signed (or deliberately mis-signed) provider request to its ingest URL.
 */
import { createHmac } from "node:crypto";
import { request } from "node:http";
import type { RunningEmulator } from "../../../emulator";
import { call, type CallResult } from "../../support/emulator";
import { wh } from "./endpoints-support";

export async function createSource(emu: RunningEmulator, key: string, body: Record<string, unknown> = {}) {
  const res = await wh(emu, "POST", "/v1/sources", { key, body: { provider: "generic", ...body } });
  if (res.status !== 201) throw new Error(`create source -> ${res.status}: ${res.text}`);
  return res.body as { id: string; secret?: string; ingest_url: string; project_id: string; [k: string]: unknown };
}

export const sign = (secret: string, body: string | Buffer) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export interface IngestOptions {
  /** Sign with this secret (default: no signature header). */
  secret?: string;
  /** Send this signature header value as is. */
  signature?: string;
  id?: string;
  headers?: Record<string, string>;
}

/** POST the raw body to the source's ingest path (no API key). */
export function ingest(emu: RunningEmulator, sourceId: string, body: string | Buffer, opts: IngestOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
  const signature = opts.signature ?? (opts.secret !== undefined ? sign(opts.secret, body) : undefined);
  if (signature !== undefined) headers["x-webhook-signature"] = signature;
  if (opts.id !== undefined) headers["x-webhook-id"] = opts.id;
  return call(emu, "POST", `/webhooks/v1/ingest/${sourceId}`, { raw: body, headers });
}

/** Like `ingest`, with a signature header carrying non-ASCII (latin-1) bytes, which fetch refuses to send. */
export function ingestLatin1Signature(emu: RunningEmulator, sourceId: string, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}/webhooks/v1/ingest/${sourceId}`, { method: "POST", headers: { "content-type": "application/json", "x-webhook-signature": "sha256=\u00e9\u00e9" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
