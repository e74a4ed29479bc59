/**
 * Drive a provider the way the engine does (check → diff → create/update/read/delete),
 * against the emulator, with configure() given its URL and a workspace's key.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { expect } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { call, control, lastSeq, requestsSince } from "../support/emulator";
import { setNoteSink } from "../../provider/engine/errors";

export interface Workspace {
  workspace_id: string;
  project_id: string;
  webhooks: { admin: string; read: string; publish: string };
  inboxes: { admin: string; read: string };
  infra: { admin: string; member: string };
}

export type Props = Record<string, any>;

export function configure(provider: dynamic.ResourceProvider, values: Record<string, string | undefined>): Promise<void> {
  return provider.configure!({
    config: {
      get: (k: string) => values[k],
      require: (k: string) => {
        const v = values[k];
        if (v === undefined) throw new Error(`missing ${k}`);
        return v;
      },
    },
  });
}

/** A fresh workspace whose admin key the provider uses (the default profile). */
export async function useWorkspace(emu: RunningEmulator, provider: dynamic.ResourceProvider, plan: "free" | "pro" | "enterprise" = "pro", extra: Record<string, string> = {}): Promise<Workspace> {
  const ws = await control<Workspace>(emu, "POST", "/workspaces", { plan });
  await configure(provider, { "svc:webhooksUrl": emu.webhooksUrl, "svc:webhooksApiKey": ws.webhooks.admin, ...extra });
  return ws;
}

/** A fresh pro workspace, a project "team" in it, and a Webhooks admin key confined to that project. */
export async function confinedWorkspace(emu: RunningEmulator): Promise<{ ws: Workspace; project: string; confinedKey: string }> {
  const ws = await control<Workspace>(emu, "POST", "/workspaces", { plan: "pro" });
  const project = (await control<{ id: string }>(emu, "POST", "/projects", { workspace_id: ws.workspace_id, name: "team" })).id;
  const confinedKey = (await control<{ key: string }>(emu, "POST", "/keys", { product: "webhooks", scope: "admin", workspace_id: ws.workspace_id, project_id: project })).key;
  return { ws, project, confinedKey };
}

export class Driver {
  constructor(
    readonly emu: RunningEmulator,
    readonly provider: dynamic.ResourceProvider,
  ) {}

  async check(news: Props, olds: Props = {}) {
    return this.provider.check!(olds, news);
  }

  /** check, expecting no failure: the inputs a create is given (its preview's reads done, e.g. before faults are set). */
  async checked(news: Props): Promise<Props> {
    const checked = await this.check(news);
    expect(checked.failures ?? []).toEqual([]);
    return checked.inputs;
  }

  async create(news: Props): Promise<{ id: string; outs: Props; inputs: Props }> {
    const inputs = await this.checked(news);
    const res = await this.provider.create(inputs);
    return { id: res.id, outs: res.outs, inputs };
  }

  /** check (the old outputs standing for the old inputs), diff, and update when diff says so. */
  async update(id: string, olds: Props, news: Props) {
    const checked = await this.check(news, olds);
    expect(checked.failures ?? []).toEqual([]);
    const diff = await this.provider.diff!(id, olds, checked.inputs);
    if (!diff.changes) return { diff, outs: olds };
    const res = await this.provider.update!(id, olds, checked.inputs);
    return { diff, outs: res.outs as Props };
  }

  /**
   * Run `fn` and return the API calls it made (method and path). The reads that tell which
   * workspace the key reaches (provider/engine/reach.ts: once per connection and operation,
   * counted in test/provider/reach.test.ts) are apart, in `identity`: `calls` are the kind's own.
   */
  async calls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: string[]; writes: string[]; identity: string[] }> {
    const since = await lastSeq(this.emu);
    const result = await fn();
    const log = await requestsSince(this.emu, since);
    const all = log.map((r) => `${r.method} ${r.path.replace(/^\/(webhooks|inboxes|infra)(?=\/)/, "")}`);
    const isIdentity = (c: string) => c === "GET /v1/auth/me" || c === "GET /v1/audit";
    const calls = all.filter((c) => !isIdentity(c));
    return { result, calls, writes: calls.filter((c) => !c.startsWith("GET ")), identity: all.filter(isIdentity) };
  }

  raw(method: string, path: string, key: string, body?: unknown) {
    return call(this.emu, method, `/webhooks${path}`, { key, body });
  }
}

export /** The warnings `run` makes the provider note. */
async function noted(run: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  setNoteSink((m) => warnings.push(m));
  try {
    await run();
  } finally {
    setNoteSink((m) => void process.stderr.write(`warning: ${m}\n`));
  }
  return warnings;
}
