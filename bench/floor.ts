/**
 * The floor: the minimal HTTP calls of each phase, issued directly with undici at the
 * same concurrency as the provider, in a workspace of their own. Bodies come from the
 * resource tables (createBody, planUpdate), so they are the provider's own payloads:
 *   up       one POST per resource;
 *   update   the one PATCH the changed field needs (a kind with no update route: DELETE + POST);
 *   refresh  one paged listing per kind (ceil(N/200) GETs);
 *   destroy  one DELETE per resource.
 * Preview and no-op runs need no call at all: their floor is zero.
 * Only the calls are timed: bodies and plans are prepared before the clock starts.
 *
 * Run by bench/run.ts in a fresh process of its own, started like bench/direct.ts, so
 * that both sides start as cold (prints one JSON line, a FloorResult):
 *
 *   tsx bench/floor.ts --url http://127.0.0.1:PORT --size 100 --parallel 16 [--emulator-pid PID]
 */
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { checkInputs } from "../provider/engine/check";
import { diffFields } from "../provider/engine/diff";
import { planUpdate } from "../provider/engine/plan";
import { createBody } from "../provider/engine/values";
import type { Props, ResourceDefinition } from "../provider/engine/fields";
import { DEFINITIONS } from "../provider/registry";
import { cpuClock, newWorkspace } from "./emulator-process";
import { pool } from "./runner";
import { mixedStack, stackKinds, type Declared } from "./stack";

export interface FloorPhase {
  ms: number;
  calls: number;
  /** CPU time (ms) the floor's process and the emulator's process spent in the timed part. */
  cpuMs: number;
  emulatorCpuMs?: number;
}

/** What a floor process prints: its phases by name (up, update, refresh, destroy). */
export interface FloorResult {
  size: number;
  phases: Record<string, FloorPhase>;
}

interface Conn {
  baseUrl: string;
  key: string;
}

const defOf = (kind: string): ResourceDefinition => DEFINITIONS[kind as keyof typeof DEFINITIONS]!;
const idOf = (def: ResourceDefinition, r: Props) => (def.idOf ? def.idOf(r) : String(r[def.idField ?? "id"]));

export class Floor {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });
  private calls = 0;
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly conns: Record<string, Conn>,
    private readonly parallel: number,
    private readonly emulatorPid?: number,
  ) {}

  private async send(kind: string, method: string, path: string, body?: unknown): Promise<Props> {
    const conn = this.conns[defOf(kind).product]!;
    this.calls++;
    const res = await request(conn.baseUrl + path, {
      method: method as "GET",
      dispatcher: this.agent,
      headers: { authorization: `Bearer ${conn.key}`, "content-type": "application/json", accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`floor ${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as Props) : {};
  }

  /** Times `f`, and counts its calls and the CPU this process and the emulator spend in it. */
  private async measured(f: () => Promise<void>): Promise<FloorPhase> {
    this.calls = 0;
    const cpu = cpuClock(this.emulatorPid);
    const started = performance.now();
    await f();
    const ms = performance.now() - started;
    const { ownCpuMs, emulatorCpuMs } = cpu();
    return { ms, calls: this.calls, cpuMs: ownCpuMs, emulatorCpuMs };
  }

  private timed(items: Declared[], f: (d: Declared) => Promise<void>): Promise<FloorPhase> {
    return this.measured(() => pool(items, this.parallel, f));
  }

  private checked(d: Declared): Props {
    return checkInputs(defOf(d.kind), d.inputs).inputs;
  }

  async create(decls: Declared[]): Promise<FloorPhase> {
    const bodies = new Map(decls.map((d) => [d.name, createBody(defOf(d.kind), this.checked(d))]));
    return this.timed(decls, async (d) => {
      const def = defOf(d.kind);
      this.ids.set(d.name, idOf(def, await this.send(d.kind, "POST", def.paths.create, bodies.get(d.name))));
    });
  }

  async update(olds: Declared[], news: Declared[]): Promise<FloorPhase> {
    const oldBy = new Map(olds.map((d) => [d.name, this.checked(d)]));
    const plans = new Map(
      news.map((d) => {
        const def = defOf(d.kind);
        const n = this.checked(d);
        const o = oldBy.get(d.name)!;
        const replace = diffFields(def, o, n).replaces.length > 0;
        return [d.name, { replace, calls: replace ? [] : planUpdate(def, o, n), body: createBody(def, n) }] as const;
      }),
    );
    return this.timed(news, async (d) => {
      const def = defOf(d.kind);
      const plan = plans.get(d.name)!;
      const path = def.paths.item(this.ids.get(d.name)!);
      if (plan.replace) {
        await this.send(d.kind, "DELETE", path);
        this.ids.set(d.name, idOf(def, await this.send(d.kind, "POST", def.paths.create, plan.body)));
        return;
      }
      for (const c of plan.calls) await this.send(d.kind, c.method, path + c.path, c.body);
    });
  }

  async refresh(decls: Declared[]): Promise<FloorPhase> {
    const kinds = [...new Set(decls.map((d) => d.kind))];
    return this.measured(() =>
      pool(kinds, this.parallel, async (kind) => {
        const def = defOf(kind);
        for (let offset = 0; ; ) {
          const page = await this.send(kind, "GET", `${def.paths.create}?limit=200&offset=${offset}`);
          const data = (page.data as unknown[]) ?? [];
          offset += data.length;
          if (data.length === 0 || offset >= Number(page.total ?? 0)) break;
        }
      }),
    );
  }

  async destroy(decls: Declared[]): Promise<FloorPhase> {
    return this.timed(decls, async (d) => {
      await this.send(d.kind, "DELETE", defOf(d.kind).paths.item(this.ids.get(d.name)!));
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function main() {
  const { values } = parseArgs({ options: { url: { type: "string" }, size: { type: "string" }, parallel: { type: "string", default: "16" }, "emulator-pid": { type: "string" } } });
  const url = values.url!;
  const size = Number(values.size);
  const ws = await newWorkspace(url, `bench-floor-${size}`);
  const conns = Object.fromEntries(["webhooks", "inboxes", "infra"].map((p) => [p, { baseUrl: `${url}/${p}`, key: ws[p]!.admin }]));
  const kinds = stackKinds(Object.keys(DEFINITIONS));
  const v1 = mixedStack(size, 1, kinds);
  const v2 = mixedStack(size, 2, kinds);
  const floor = new Floor(conns, Number(values.parallel), values["emulator-pid"] ? Number(values["emulator-pid"]) : undefined);
  const phases: Record<string, FloorPhase> = {};
  phases.up = await floor.create(v1);
  phases.update = await floor.update(v1, v2);
  phases.refresh = await floor.refresh(v2);
  phases.destroy = await floor.destroy(v2);
  await floor.close();
  const result: FloorResult = { size, phases };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
