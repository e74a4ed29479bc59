/**
 * VMs: GET /v1/vms (cursor list), POST /v1/vms (create; quota refusal 429).
 * `createVms` is also the control plane's way to seed VMs in any state.
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../core/context";
import { newId } from "../core/store";
import { objectBody } from "../core/violations";
import { parse } from "../core/validation";
import { DEFAULT_REGION } from "../../rules/quota";
import { SCOPES, auth } from "./common";
import { cursorPage } from "./pagination";
import { assertQuota } from "./quotas";
import { VM_STATES, infraState, type Vm, type VmState } from "./state";

export const vmSpec = z.object({
  name: z.string().min(1).max(63).default("vm"),
  region: z.string().min(1).default(DEFAULT_REGION),
  vcpu: z.number().int().min(1).max(64).default(2),
  ram_gb: z.number().int().min(1).max(512).default(4),
});
export type VmSpec = z.output<typeof vmSpec> & { state: VmState; count: number };

/** Create `count` VMs, all or none: the quotas (VMs unless terminated; vCPU and RAM when running) are checked first. */
export function createVms(ctx: EmulatorContext, projectId: string, spec: VmSpec): Vm[] {
  const counted = spec.state === "terminated" ? 0 : spec.count;
  const running = spec.state === "running" ? spec.count : 0;
  assertQuota(ctx, projectId, spec.region, { vms: counted, vcpu: running * spec.vcpu, ram_gb: running * spec.ram_gb });
  const s = infraState(ctx);
  const now = ctx.nowIso();
  return Array.from({ length: spec.count }, (_, i) => {
    const n = ++s.ipSeq;
    const vm: Vm = {
      id: newId("vm"),
      project_id: projectId,
      name: spec.count === 1 ? spec.name : `${spec.name}-${String(i + 1).padStart(3, "0")}`,
      region: spec.region,
      state: spec.state,
      vcpu: spec.vcpu,
      ram_gb: spec.ram_gb,
      ipv4: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      created_at: now,
      updated_at: now,
    };
    s.vms[vm.id] = vm;
    ctx.store.changed();
    return vm;
  });
}

export const VM_STATE_ENUM = z.enum(VM_STATES);

export function registerVms(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/vms", async (req) => {
    const p = auth(ctx, req, SCOPES.vmsRead);
    return cursorPage(req, "vms", Object.values(infraState(ctx).vms).filter((v) => v.project_id === p.project.id), (v) => v);
  });

  app.post("/v1/vms", async (req, reply) => {
    const p = auth(ctx, req, SCOPES.vmsCreate);
    const spec = parse(vmSpec.strict(), objectBody(req.body));
    const [vm] = createVms(ctx, p.project.id, { ...spec, state: "running", count: 1 });
    return reply.status(201).send(vm);
  });
}
