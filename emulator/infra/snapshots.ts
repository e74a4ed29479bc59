/** Snapshots: GET /v1/snapshots (cursor list). The control plane seeds them with `createSnapshots`. */
import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../core/context";
import { newId } from "../core/store";
import { SCOPES, auth } from "./common";
import { cursorPage } from "./pagination";
import { assertQuota } from "./quotas";
import { infraState, type Snapshot, type SnapshotState } from "./state";

export interface SnapshotSpec {
  count: number;
  name: string;
  region: string;
  state: SnapshotState;
  size_gb: number;
  vm_id: string | null;
}

/** Create `count` snapshots, all or none; deleted ones do not count toward the `snapshots` quota. */
export function createSnapshots(ctx: EmulatorContext, projectId: string, spec: SnapshotSpec): Snapshot[] {
  assertQuota(ctx, projectId, spec.region, { snapshots: spec.state === "deleted" ? 0 : spec.count });
  const s = infraState(ctx);
  const now = ctx.nowIso();
  return Array.from({ length: spec.count }, (_, i) => {
    const snap: Snapshot = {
      id: newId("snap"),
      project_id: projectId,
      name: spec.count === 1 ? spec.name : `${spec.name}-${String(i + 1).padStart(3, "0")}`,
      region: spec.region,
      state: spec.state,
      vm_id: spec.vm_id,
      size_gb: spec.size_gb,
      created_at: now,
      updated_at: now,
    };
    s.snapshots[snap.id] = snap;
    ctx.store.changed();
    return snap;
  });
}

export function registerSnapshots(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get("/v1/snapshots", async (req) => {
    const p = auth(ctx, req, SCOPES.snapshotsRead);
    return cursorPage(req, "snapshots", Object.values(infraState(ctx).snapshots).filter((x) => x.project_id === p.project.id), (x) => x);
  });
}
