/**
 * The invariants of issue 15, checked against the emulator and the state file after
 * every run (provider/README.md states them):
 *   1. after a run that exits 0, the service holds exactly one object for each
 *      resource in the state and nothing else this stack created;
 *   2. a run that fails leaves no object the state does not hold unless its error
 *      names that object's id (the candidates, and what to do);
 *   3. a rerun after an interruption converges to 1 (the rerun is checked as any run);
 *   4. no secret (the marker, the API keys) in plaintext in the state file or
 *      anything the run printed: outputs, diagnostics, error messages.
 * Plus what the README promises on the way: a preview writes nothing; an up that
 * exits 0 holds every declared resource, settings at their declared values; a
 * destroy puts the settings back.
 */
import { KINDS, QUOTA_REGIONS, RESOURCE_KINDS, type ResourceKind } from "./kinds";
import type { DeclaredResource, RunOutcome, World } from "./world";

export class InvariantViolation extends Error {
  constructor(
    readonly invariant: string,
    message: string,
  ) {
    super(`invariant ${invariant} broken: ${message}`);
    this.name = "InvariantViolation";
  }
}

export interface RunContext {
  declared: DeclaredResource[];
  /** Ids the model deleted out of band since the last refresh: the state may still name them. */
  deletedOutOfBand: Set<string>;
  /** Endpoints whose custom headers were rewritten out of band since the last refresh: an up cannot know yet. */
  headersRewritten: Set<string>;
  /** Writes the run sent (request log), for the preview check. */
  writes: { method: string; path: string; status: number }[];
  /** Objects another stack holds in the same workspace (commands.ts `SecondStack`): never this stack's, never touched by it. */
  others: ReadonlySet<string>;
  /** `vcpu` raised by an admin outside Pulumi (project-wide): no resource declares it, so every run keeps it. */
  adminVcpu: number | undefined;
}

/** Settings a fresh workspace holds, put back by a destroy (compute quotas are the same in every region). */
const DEFAULT_SETTINGS = { endpointVerification: "optional", eventTypePolicy: "lenient", computeVms: 50, computeVcpu: 200 };

export async function checkRun(world: World, outcome: RunOutcome, ctx: RunContext): Promise<void> {
  checkSecrets(world, outcome);
  if (outcome.interrupted) return;
  if (!outcome.result) throw new InvariantViolation("run", `${outcome.verb} printed no result (exit ${outcome.exitCode}): ${tail(outcome.text)}`);
  if (outcome.exitCode === 0) await checkSucceeded(world, outcome, ctx);
  else await checkFailed(world, outcome, ctx);
  await checkEndpointsEnabled(world);
}

/**
 * The model never declares an endpoint's status, so every endpoint the state holds is
 * enabled on the service, whatever the run did: a delete refused for pending deliveries
 * disables it (the spec says so), and the provider puts it back (issue 24, scenario 6).
 */
async function checkEndpointsEnabled(world: World): Promise<void> {
  for (const r of world.state().resources.filter((x) => x.kind === "webhooks:Endpoint" && !x.delete)) {
    const res = await world.api("GET", `/webhooks/v1/endpoints/${r.id}`);
    if (res.status === 200 && res.body.status !== "enabled") throw new InvariantViolation("1", `endpoint ${r.name} (${r.id}) is ${res.body.status} on the service; the state holds it as declared (enabled)`);
  }
}

function checkSecrets(world: World, outcome: RunOutcome): void {
  const state = world.state().raw;
  for (const secret of world.secrets()) {
    const label = secret === world.marker ? "the secret marker" : "an API key";
    if (outcome.text.includes(secret)) throw new InvariantViolation("4", `${label} appears in plaintext in what ${outcome.verb} printed: …${around(outcome.text, secret)}…`);
    if (state.includes(secret)) throw new InvariantViolation("4", `${label} appears in plaintext in the state file after ${outcome.verb}: …${around(state, secret)}…`);
  }
}

interface Comparison {
  /** Held, not in the state: orphans or duplicates. */
  extra: { kind: ResourceKind; id: string }[];
  /** In the state, not held. */
  missing: { kind: ResourceKind; name: string; id: string }[];
  /** One id claimed by several resources of the state, or by this stack and another. */
  shared: string[];
  /** Another stack's objects gone from the service: this stack deleted (or took) them. */
  othersGone: string[];
}

async function compare(world: World, others: ReadonlySet<string>): Promise<Comparison> {
  const held = await world.holdings();
  const { resources } = world.state();
  const out: Comparison = { extra: [], missing: [], shared: [], othersGone: [] };
  const all = new Set([...held.values()].flat());
  out.othersGone.push(...[...others].filter((id) => !all.has(id)));
  out.shared.push(...resources.filter((r) => !r.delete && others.has(r.id!)).map((r) => r.id!));
  for (const kind of RESOURCE_KINDS) {
    const ids = held.get(kind);
    if (!ids) continue;
    const inState = resources.filter((r) => r.kind === kind && !r.delete);
    const stateIds = inState.map((r) => r.id!);
    out.shared.push(...stateIds.filter((id, i) => stateIds.indexOf(id) !== i));
    for (const id of ids) if (!stateIds.includes(id) && !others.has(id)) out.extra.push({ kind, id });
    for (const r of inState) if (!ids.includes(r.id!)) out.missing.push({ kind, name: r.name, id: r.id! });
  }
  return out;
}

async function checkSucceeded(world: World, outcome: RunOutcome, ctx: RunContext): Promise<void> {
  const verb = outcome.verb;
  if (verb === "preview") {
    if (ctx.writes.length) throw new InvariantViolation("preview", `a preview that exited 0 sent writes: ${ctx.writes.map((w) => `${w.method} ${w.path} ${w.status}`).join(", ")}`);
    return;
  }
  const c = await compare(world, ctx.others);
  const { resources } = world.state();
  checkOthers(c, verb);
  const stale = resources.filter((r) => r.delete);
  if (stale.length) throw new InvariantViolation("1", `${verb} exited 0 with old copies still to delete in the state: ${stale.map((r) => `${r.name} ${r.id}`).join(", ")}`);
  if (c.extra.length) throw new InvariantViolation("1", `${verb} exited 0 but the service holds objects the state does not (orphans or duplicates): ${fmt(c.extra)}`);
  if (c.shared.length) throw new InvariantViolation("1", `several resources (of this stack, or this stack and another) claim one object: ${c.shared.join(", ")}`);
  // Deleted out of band and not refreshed since: the real engine keeps them in the state too.
  const missing = verb === "refresh" ? c.missing : c.missing.filter((m) => !ctx.deletedOutOfBand.has(m.id));
  if (missing.length) throw new InvariantViolation("1", `${verb} exited 0 but the service does not hold: ${missing.map((m) => `${m.name} (${m.kind} ${m.id})`).join(", ")}`);

  if (verb === "destroy") {
    if (resources.length) throw new InvariantViolation("1", `destroy exited 0 and the state still holds ${resources.map((r) => r.name).join(", ")}`);
    for (const region of QUOTA_REGIONS) await checkSettings(world, region, { ...DEFAULT_SETTINGS, computeVcpu: ctx.adminVcpu ?? DEFAULT_SETTINGS.computeVcpu }, "after destroy");
  }
  if (verb === "up") {
    const names = (list: { kind: string; name: string }[]) => list.map((r) => `${r.kind} ${r.name}`).sort();
    const want = names(ctx.declared);
    const got = names(resources);
    if (JSON.stringify(want) !== JSON.stringify(got)) throw new InvariantViolation("1", `up exited 0 but the state holds [${got.join(", ")}] for the program's [${want.join(", ")}]`);
    const setting = (kind: ResourceKind) => ctx.declared.find((d) => d.kind === kind)?.args;
    for (const region of QUOTA_REGIONS) {
      const limits = ctx.declared.find((d) => d.kind === "infra:QuotaLimits" && d.args.region === region)?.args.limits as { vms: number } | undefined;
      await checkSettings(
        world,
        region,
        {
          endpointVerification: setting("webhooks:WorkspaceSettings")?.endpointVerification as string | undefined,
          eventTypePolicy: setting("webhooks:EventTypePolicy")?.policy as string | undefined,
          computeVms: limits?.vms,
          computeVcpu: ctx.adminVcpu ?? DEFAULT_SETTINGS.computeVcpu,
        },
        "after up",
      );
    }
    await checkHeaderNames(world, ctx);
  }
}

/**
 * After an up, every endpoint carries the declared header names (values are never
 * shown), unless rewritten or deleted out of band and not refreshed since.
 */
async function checkHeaderNames(world: World, ctx: RunContext): Promise<void> {
  const touched = (id: string) => ctx.headersRewritten.has(id) || ctx.deletedOutOfBand.has(id);
  for (const r of world.state().resources.filter((x) => x.kind === "webhooks:Endpoint" && !touched(x.id!))) {
    const declaredHeaders = (ctx.declared.find((d) => d.name === r.name)?.args.customHeaders ?? {}) as Record<string, string>;
    const got = ((await world.api("GET", `/webhooks/v1/endpoints/${r.id}`)).body as { custom_header_names?: string[] }).custom_header_names ?? [];
    const want = Object.keys(declaredHeaders).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new InvariantViolation("1", `after up, endpoint ${r.name} (${r.id}) carries the custom headers [${got.join(", ")}], not the declared [${want.join(", ")}]`);
  }
}

/** Another stack's objects are never this stack's to take or delete. */
function checkOthers(c: Comparison, verb: string): void {
  if (c.othersGone.length) throw new InvariantViolation("1", `after ${verb}, objects another stack holds are gone from the service: ${c.othersGone.join(", ")}`);
}

/** A failed run may leave objects the state does not hold only if its error names them. */
async function checkFailed(world: World, outcome: RunOutcome, ctx: RunContext): Promise<void> {
  const c = await compare(world, ctx.others);
  checkOthers(c, outcome.verb);
  if (c.shared.length) throw new InvariantViolation("1", `after a failed ${outcome.verb}, several resources (of this stack, or this stack and another) claim one object: ${c.shared.join(", ")}`);
  const errors = outcome.result!.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n");
  const unnamed = c.extra.filter((x) => !errors.includes(x.id));
  if (unnamed.length) {
    throw new InvariantViolation("2", `${outcome.verb} failed leaving objects the state does not hold, and its errors do not name them: ${fmt(unnamed)}; errors: ${tail(errors, 1500)}`);
  }
}

/** The workspace settings, and the compute quotas of one region. */
async function checkSettings(world: World, region: string, want: { endpointVerification?: string; eventTypePolicy?: string; computeVms?: number; computeVcpu?: number }, when: string): Promise<void> {
  const ws = (await world.api("GET", "/webhooks/v1/workspace")).body as { endpoint_verification: string; event_type_policy: string };
  const quota = (await world.api("GET", `/infra/api/v1/quota/compute?region=${region}`)).body as { limits: { vms: number; vcpu: number } };
  const got = { endpointVerification: ws.endpoint_verification, eventTypePolicy: ws.event_type_policy, computeVms: quota.limits.vms, computeVcpu: quota.limits.vcpu };
  for (const key of Object.keys(got) as (keyof typeof got)[]) {
    const where = key.startsWith("compute") ? ` (${region})` : "";
    if (want[key] !== undefined && want[key] !== got[key]) throw new InvariantViolation("1", `${when}: the service's ${key}${where} is ${got[key]}, expected ${want[key]}`);
  }
}

const fmt = (xs: { kind: ResourceKind; id: string }[]) => xs.map((x) => `${x.kind} ${x.id}`).join(", ");
const tail = (s: string, n = 800) => (s.length > n ? `…${s.slice(-n)}` : s);

function around(text: string, secret: string): string {
  const i = text.indexOf(secret);
  // Never print the secret itself in the failure: mask it.
  return text.slice(Math.max(0, i - 120), i + secret.length + 60).split(secret).join("<SECRET>");
}

export const LISTED_KINDS = RESOURCE_KINDS.filter((k) => KINDS[k].list);
