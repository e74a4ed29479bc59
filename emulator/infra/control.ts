/**
 * Infrastructure control plane, under `/_emulator/infra` (emulator only;
 * documented in emulator/docs/infra.md): seed VMs and snapshots in any state
 * (quota-checked like the API: 429 with an empty Retry-After), change their state.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { notFound } from "../core/errors";
import { parse } from "../core/validation";
import { DEFAULT_REGION } from "../../rules/quota";
import { createSnapshots } from "./snapshots";
import { assertQuota } from "./quotas";
import { SNAPSHOT_STATES, infraState, type Listed } from "./state";
import { VM_STATE_ENUM, createVms, vmSpec } from "./vms";

const seed = { count: z.number().int().min(1).max(1000).default(1), project_id: z.string().optional() };
const vmsIn = vmSpec.extend({ ...seed, state: VM_STATE_ENUM.default("running") });
const snapshotsIn = z.object({
  ...seed,
  name: z.string().min(1).default("snap"),
  region: z.string().min(1).default(DEFAULT_REGION),
  state: z.enum(SNAPSHOT_STATES).default("available"),
  size_gb: z.number().int().min(1).default(10),
  vm_id: z.string().nullable().default(null),
});
const vmPatch = z.object({ state: VM_STATE_ENUM });
const snapshotPatch = z.object({ state: z.enum(SNAPSHOT_STATES) });

function projectOr404(ctx: EmulatorContext, id: string | undefined): string {
  const projectId = id ?? ctx.defaults.project_id;
  if (!ctx.state.projects[projectId]) throw notFound("project", projectId);
  return projectId;
}

function setState(ctx: EmulatorContext, record: Listed | undefined, kind: string, id: string, state: string): Listed {
  if (!record) throw notFound(kind, id);
  record.state = state;
  record.updated_at = ctx.nowIso();
  ctx.store.changed();
  return record;
}

export function infraControl(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post("/vms", async (req, reply) => {
    const body = parse(vmsIn, req.body ?? {});
    return reply.status(201).send({ items: createVms(ctx, projectOr404(ctx, body.project_id), body) });
  });

  app.patch<{ Params: { id: string } }>("/vms/:id", async (req) => {
    const { state } = parse(vmPatch, req.body ?? {});
    const vm = infraState(ctx).vms[req.params.id];
    // Leaving `terminated` counts again, so it passes the quota check first.
    if (vm && vm.state === "terminated" && state !== "terminated") assertQuota(ctx, vm.project_id, vm.region, { vms: 1 });
    return setState(ctx, vm, "vm", req.params.id, state);
  });

  app.post("/snapshots", async (req, reply) => {
    const body = parse(snapshotsIn, req.body ?? {});
    return reply.status(201).send({ items: createSnapshots(ctx, projectOr404(ctx, body.project_id), body) });
  });

  app.patch<{ Params: { id: string } }>("/snapshots/:id", async (req) => {
    const { state } = parse(snapshotPatch, req.body ?? {});
    const snap = infraState(ctx).snapshots[req.params.id];
    if (snap && snap.state === "deleted" && state !== "deleted") assertQuota(ctx, snap.project_id, snap.region, { snapshots: 1 });
    return setState(ctx, snap, "snapshot", req.params.id, state);
  });
}
