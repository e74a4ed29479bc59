/**
 * The model's commands for fast-check (`fc.commands`, `fc.asyncModelRun`): program
 * edits (add, change a field, remove, rename with an alias) that only change the
 * model's program, and runs (up, preview, refresh, destroy, an up with an injected
 * fault, an interrupted up followed by a rerun) plus out-of-band changes and deletes
 * through the API. Every run is checked with the invariants (invariants.ts).
 */
import fc from "fast-check";
import { KINDS, QUOTA_REGIONS, RESOURCE_KINDS, itemPath, type Args, type ResourceKind } from "./kinds";
import { InvariantViolation, checkRun } from "./invariants";
import { MAIN_STACK, sleep, type DeclaredResource, type Interruption, type World } from "./world";
import type { Verb } from "../support/run-types";

export interface ModelResource {
  kind: ResourceKind;
  name: string;
  /** Number of the resource among its kind in this sequence (its arguments derive from it). */
  n: number;
  version: number;
  lookAlike: boolean;
  aliases: string[];
  /** Adoption inputs (`adoptId`, `adoptExisting`) of a rename that adopts its own object; dropped after the next up that exits 0. */
  adopt?: Args;
}

export interface Model {
  program: ModelResource[];
  perKind: Partial<Record<ResourceKind, number>>;
  names: number;
  /** Ids deleted out of band since the last refresh that exited 0. */
  deletedOutOfBand: Set<string>;
  /** Endpoints whose custom headers were rewritten out of band since the last refresh that exited 0 (an up alone cannot know). */
  headersRewritten: Set<string>;
  /** A run has had something to deploy: runs of an empty program before that test nothing. */
  started: boolean;
  /** Objects the second stack holds in the workspace (`SecondStack`). */
  others: Set<string>;
  /** `vcpu` an admin raised outside Pulumi (`AdminRaise`): one figure for the project, whatever region the PATCH named. */
  adminVcpu: number | undefined;
}

export interface Real {
  world: World;
  options: ModelOptions;
  /** What happened, one line per command: printed with a failure. */
  log: string[];
}

export interface ModelOptions {
  /** Most resources in the program at once. */
  maxResources: number;
  /**
   * Fault classes, each on by default and each with commands of its own so that a short
   * run meets it (`--no-<class>` turns one off to narrow a hunt): look-alike resources
   * (endpoints to one URL, HTTP bins with no label) with creates whose answers are lost,
   * and creates that land 4 s after the connection dropped.
   */
  lookAlikes: boolean;
  lateCreates: boolean;
  /** Interrupted ups (SIGINT or SIGKILL part-way, sometimes while a create is in flight inside the service), each followed by a rerun. */
  interruptions: boolean;
  /**
   * Every command on a fresh runner, and an interrupted up followed by `pulumi cancel` and
   * `pulumi-svc recover` (the real CLI only). With interruptions, a quota request's create is
   * also killed in flight: recover then asks for the user's word, which the model gives.
   */
  freshRunners?: boolean;
  /**
   * Renames of every kind, settings included, expecting what the real engine does with
   * an alias: a renamed resource keeps its object (no delete of the old name). Off:
   * renames of kinds without a listing (the settings) are left out.
   */
  aliases: boolean;
}

const MAX_REQUESTS_PER_QUOTA_KIND = 4;

export function initialModel(): Model {
  return { program: [], perKind: {}, names: 0, deletedOutOfBand: new Set(), headersRewritten: new Set(), started: false, others: new Set(), adminVcpu: undefined };
}

const declared = (m: Model): DeclaredResource[] =>
  m.program.map((r) => ({ kind: r.kind, name: r.name, args: { ...KINDS[r.kind].args(r.n, r.version, r.lookAlike), ...r.adopt }, aliases: r.aliases }));

const pick = <T>(xs: T[], i: number): T => xs[i % xs.length]!;
const short = (kind: ResourceKind) => kind.split(":")[1]!.toLowerCase();

/** Runs one verb, checks the invariants, logs the outcome. */
async function runChecked(m: Model, r: Real, verb: Verb, label: string, how: { interrupt?: Interruption; settleMs?: number } = {}) {
  const opts = r.options;
  m.started = true;
  const seq = await r.world.lastSeq();
  let outcome;
  try {
    outcome = await r.world.run(verb, declared(m), how.interrupt);
  } finally {
    // The checks below must see the service without faults; a create still in flight lands first.
    await r.world.control("DELETE", "/faults");
  }
  if (how.settleMs) await sleep(how.settleMs);
  const writes = await r.world.writesSince(seq);
  const steps = outcome.result?.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}${s.failed ? " FAILED" : ""}`) ?? [];
  r.log.push(`${label}: exit ${outcome.exitCode}${outcome.interrupted ? ` (${outcome.interrupted})` : ""}${steps.length ? `; ${steps.join(", ")}` : ""}; ${writes.length} writes`);
  await checkRun(r.world, outcome, { declared: declared(m), deletedOutOfBand: m.deletedOutOfBand, headersRewritten: m.headersRewritten, writes, others: m.others, adminVcpu: m.adminVcpu });
  if (opts.aliases && verb === "up") checkAliasesKept(m, outcome.result?.steps ?? []);
  // Adopted: the user removes the adoption input (a provider-side input: no call).
  if (verb === "up" && outcome.exitCode === 0) for (const res of m.program) delete res.adopt;
  if (verb === "refresh" && outcome.exitCode === 0) {
    m.deletedOutOfBand.clear();
    m.headersRewritten.clear();
  }
  return outcome;
}

/** An alias makes the old name the same resource: the real engine never deletes it as removed. */
function checkAliasesKept(m: Model, steps: { op: string; name: string }[]): void {
  const aliased = new Set(m.program.flatMap((r) => r.aliases));
  const deleted = steps.filter((s) => s.op === "delete" && aliased.has(s.name));
  if (deleted.length) throw new InvariantViolation("alias", `up deleted ${deleted.map((s) => s.name).join(", ")}, an alias of a resource the program still declares (the real engine keeps the object)`);
}

// ---- program edits -------------------------------------------------------------

export class Add implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly kind: ResourceKind,
    readonly lookAlike: boolean,
    readonly maxResources: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    const ofKind = m.program.filter((r) => r.kind === this.kind).length;
    const made = m.perKind[this.kind] ?? 0;
    return m.program.length < this.maxResources && ofKind < KINDS[this.kind].max && (this.kind !== "infra:QuotaRequest" || made < MAX_REQUESTS_PER_QUOTA_KIND);
  }
  async run(m: Model, r: Real): Promise<void> {
    let n = m.perKind[this.kind] ?? 0;
    const slots = KINDS[this.kind].slots;
    // A kind with slots (a QuotaLimits per region): a number whose slot no present one uses.
    if (slots) while (m.program.some((x) => x.kind === this.kind && x.n % slots === n % slots)) n++;
    m.perKind[this.kind] = n + 1;
    const res: ModelResource = { kind: this.kind, name: `${short(this.kind)}-${m.names++}`, n, version: 0, lookAlike: this.lookAlike, aliases: [] };
    m.program.push(res);
    r.log.push(`${this}: ${res.name}`);
  }
  toString() {
    return `add ${this.kind}${this.lookAlike ? " (look-alike)" : ""}`;
  }
}

class Change implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.program.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const res = pick(m.program, this.index);
    res.version++;
    r.log.push(`change ${res.name} to v${res.version}`);
  }
  toString = () => `change #${this.index}`;
}

class Remove implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.program.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const res = pick(m.program, this.index);
    m.program = m.program.filter((x) => x !== res);
    r.log.push(`remove ${res.name}`);
  }
  toString = () => `remove #${this.index}`;
}

/**
 * A rename with an alias to the old name: the real engine (and the stand-in) keeps the
 * object (no delete, no create). Renames of settings (no listing: one per workspace)
 * only with `aliases`.
 */
class Rename implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly aliases: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.program.length > 0 && (this.aliases || !!KINDS[pick(m.program, this.index).kind].list);
  async run(m: Model, r: Real): Promise<void> {
    const res = pick(m.program, this.index);
    const old = res.name;
    res.aliases = [...res.aliases, old];
    res.name = `${short(res.kind)}-${m.names++}`;
    r.log.push(`rename ${old} to ${res.name} (alias)`);
  }
  toString = () => `rename #${this.index}`;
}

/**
 * A rename with no alias whose new name adopts the object the old name holds
 * (`adoptId` of its id, or `adoptExisting`), as the preview advises: the up must keep
 * the object (the old name's delete must not remove what the new name adopted).
 */
class RenameAdopting implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  private target(m: Readonly<Model>, r: Real) {
    const held = new Map(r.world.state().resources.filter((x) => !x.delete).map((x) => [x.name, x.id!]));
    const adoptable = m.program.filter((x) => KINDS[x.kind].adopt && held.has(x.name) && !x.aliases.length);
    return adoptable.length ? { res: pick(adoptable, this.index), id: held.get(pick(adoptable, this.index).name)! } : undefined;
  }
  check = (m: Readonly<Model>) => m.program.some((x) => KINDS[x.kind].adopt);
  async run(m: Model, r: Real): Promise<void> {
    const t = this.target(m, r);
    if (!t) {
      r.log.push(`${this}: nothing deployed to adopt`);
      return;
    }
    const old = t.res.name;
    t.res.name = `${short(t.res.kind)}-${m.names++}`;
    t.res.adopt = KINDS[t.res.kind].adopt!(t.id);
    r.log.push(`rename ${old} to ${t.res.name}, adopting ${t.id} (${JSON.stringify(t.res.adopt)})`);
  }
  toString = () => `rename adopting #${this.index}`;
}

// ---- runs ------------------------------------------------------------------------

class Run implements fc.AsyncCommand<Model, Real> {
  constructor(readonly verb: Verb) {}
  check = (m: Readonly<Model>) => m.started || m.program.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    await runChecked(m, r, this.verb, this.verb);
  }
  toString = () => this.verb;
}

export type FaultKind = "429" | "500" | "503" | "drop" | "drop-after-acting" | "late-create" | "late-create-4s" | "latency";

/**
 * Where faults go: the Webhooks and Inboxes APIs. A quota request carries no owner mark, so
 * a lost create's request is a question for the user (provider/README.md, "Ownership",
 * rule 2): on fresh runners `KilledQuotaRequestCreate` puts it, and the model answers it as
 * the GitOps job's user would (`recoverAsPipeline`); elsewhere test/provider/quota-request covers it.
 */
const FAULTED = "/{webhooks,inboxes}/**";

const FAULT_ACTIONS: Record<FaultKind, Record<string, unknown>> = {
  "429": { status: 429, retry_after: 1 },
  "500": { status: 500 },
  "503": { status: 503 },
  drop: { drop: true },
  "drop-after-acting": { drop_after_response: true },
  // The service acts after the connection dropped: soon, and 4 s later (past the 2 s the
  // provider's listing waited before svc:reconcileWindowSeconds, inside its default 15 s).
  "late-create": { drop_then_act_ms: 500 },
  "late-create-4s": { drop_then_act_ms: 4000 },
  latency: { latency_ms: 300 },
};

/** An up with a fault on the next `count` writes (POST: creates and actions) or on any request. */
class UpWithFault implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly fault: FaultKind,
    readonly on: "POST" | "*",
    readonly count: number,
  ) {}
  check = (m: Readonly<Model>) => m.program.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const action = FAULT_ACTIONS[this.fault];
    await r.world.control("POST", "/faults", { method: this.on, path: FAULTED, count: this.count, ...action });
    const lateMs = typeof action.drop_then_act_ms === "number" ? action.drop_then_act_ms + 200 : 0;
    await runChecked(m, r, "up", `${this}`, { settleMs: lateMs });
  }
  toString = () => `up with ${this.fault} on ${this.count} ${this.on === "POST" ? "POST" : "request"}(s)`;
}

/**
 * An up stopped part-way (Ctrl-C: SIGINT to the engine; or the whole run killed),
 * optionally while a create is still in flight inside the service, then a rerun
 * without faults: it must converge (invariant 3). On fresh runners, the rerun comes
 * after `pulumi cancel` and `pulumi-svc recover`, as the GitOps job runs them.
 */
class Interrupt implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly signal: "SIGINT" | "SIGKILL",
    readonly afterWrites: number,
    readonly delayMs: number,
    readonly createInFlight: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.program.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    if (this.createInFlight) await r.world.control("POST", "/faults", { method: "POST", path: FAULTED, count: 1, drop_then_act_ms: 1500 });
    const interrupt = { signal: this.signal, afterWrites: this.afterWrites, delayMs: this.delayMs };
    await runChecked(m, r, "up", `${this}`, { interrupt, settleMs: this.createInFlight ? 1800 : 200 });
    if (r.world.freshRunners) await recoverAsPipeline(r);
    await runChecked(m, r, "up", "rerun after the interruption");
  }
  toString = () => `up interrupted by ${this.signal} after ${this.afterWrites} write(s) +${this.delayMs} ms${this.createInFlight ? ", a create in flight" : ""}`;
}

/**
 * A quota request's create killed in flight on a fresh runner: the stack is brought up to
 * date, a quota request added, and its create's connection dropped while the service files
 * it 1.5 s later; the run is killed once the service logged it. The request carries no owner
 * mark, so `pulumi-svc recover` names it as a candidate and asks for the user's word (rule 4),
 * which `recoverAsPipeline` gives (`--adopt`); the rerun must converge with no second request.
 */
class KilledQuotaRequestCreate implements fc.AsyncCommand<Model, Real> {
  private readonly add: Add;
  constructor(maxResources: number) {
    this.add = new Add("infra:QuotaRequest", false, maxResources);
  }
  check = (m: Readonly<Model>) => this.add.check(m);
  async run(m: Model, r: Real): Promise<void> {
    await runChecked(m, r, "up", "up before a quota request's create is killed");
    await this.add.run(m, r);
    await r.world.control("POST", "/faults", { method: "POST", path: "/infra/**", count: 1, drop_then_act_ms: 1500 });
    const interrupt = { signal: "SIGKILL" as const, afterWrites: 1, delayMs: 300 };
    await runChecked(m, r, "up", `${this}`, { interrupt, settleMs: 1800 });
    await recoverAsPipeline(r);
    await runChecked(m, r, "up", "rerun after the interruption");
  }
  toString = () => "up killed with a quota request's create in flight";
}

/**
 * What the GitOps job runs before `up` on a fresh runner after a killed job
 * (examples/gitops): `pulumi cancel` (the world ran it), then `pulumi-svc recover`.
 * Where recover asks for the user's word, the model gives it as a user would: the one
 * candidate it names for a create is adopted (`--adopt`); a create with none is dropped
 * (`pulumi refresh --clear-pending-creates`, once the others are resolved). Two
 * candidates, or anything else it cannot resolve, fail the sequence: to look at.
 */
async function recoverAsPipeline(r: Real): Promise<void> {
  const first = await r.world.recover();
  const candidates = new Map<string, string[]>();
  for (const [, pair] of first.output.matchAll(/pulumi-svc recover --adopt '([^']+)'/g)) {
    const urn = pair!.slice(0, pair!.lastIndexOf("="));
    candidates.set(urn, [...(candidates.get(urn) ?? []), pair!]);
  }
  const madeNothing = first.output.includes("the create most likely made nothing");
  const summary = /pulumi-svc recover: \d+ pending operation\(s\) of svc resources; (.*)/.exec(first.output)?.[1] ?? first.output.trim().split("\n").pop();
  r.log.push(`recover: exit ${first.code}, ${summary}`);
  if (first.code === 0) return;
  const chosen = [...candidates.values()];
  if (chosen.some((pairs) => pairs.length > 1) || (chosen.length === 0 && !madeNothing)) throw new Error(`pulumi-svc recover needs a decision the model cannot make:\n${first.output}`);
  if (chosen.length > 0) {
    const adopted = await r.world.recover(chosen.flatMap(([pair]) => ["--adopt", pair!]));
    r.log.push(`recover ${chosen.map(([pair]) => `--adopt ${pair!.slice(pair!.lastIndexOf("::") + 2)}`).join(" ")}: exit ${adopted.code}`);
    if (adopted.code !== 0 && !madeNothing) throw new Error(`pulumi-svc recover --adopt failed:\n${adopted.output}`);
  }
  if (madeNothing) {
    r.world.pulumi(["refresh", "--clear-pending-creates", "--yes", "--skip-preview"]);
    r.log.push("pulumi refresh --clear-pending-creates: done");
  }
}

// ---- out of band -------------------------------------------------------------------

/**
 * Someone changes or deletes one of the stack's objects through the API, or rewrites a
 * write-only value (an endpoint's custom headers, replaced by a foreign one: its names
 * change, the values are never shown).
 */
class OutOfBand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly what: "change" | "delete" | "headers",
    readonly index: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const touchable = (kind: ResourceKind) => (this.what === "change" ? KINDS[kind].change : this.what === "headers" ? kind === "webhooks:Endpoint" : KINDS[kind].removable);
    const candidates = r.world.state().resources.filter((x) => !x.delete && touchable(x.kind));
    if (!candidates.length) {
      r.log.push(`${this}: nothing to touch`);
      return;
    }
    const target = pick(candidates, this.index);
    const path = itemPath(target.kind, target.id!);
    const call =
      this.what === "change"
        ? KINDS[target.kind].change!(target.id!, String(this.index))
        : this.what === "headers"
          ? { method: "PATCH", path, body: { custom_headers: this.index % 2 ? { "X-Evil": "attacker" } : null } }
          : { method: "DELETE", path };
    const res = await r.world.api(call.method, call.path, "body" in call ? call.body : undefined);
    if (this.what === "delete" && res.status < 300) m.deletedOutOfBand.add(target.id!);
    if (this.what === "headers" && res.status < 300) m.headersRewritten.add(target.id!);
    r.log.push(`${this}: ${call.method} ${target.name} (${target.id}) -> ${res.status}`);
  }
  toString = () => `out-of-band ${this.what} #${this.index}`;
}

/**
 * An admin raises `vcpu` outside Pulumi, naming a region: `vcpu` is project-wide (one
 * figure across the running VMs of every region), so it is raised everywhere. No
 * resource declares it, so no run may undo it.
 */
class AdminRaise implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly region: (typeof QUOTA_REGIONS)[number],
    readonly vcpu: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const res = await r.world.api("PATCH", "/infra/api/v1/quota/compute", { limits: { vcpu: this.vcpu }, region: this.region });
    if (res.status < 300) m.adminVcpu = this.vcpu;
    r.log.push(`${this}: ${res.status}`);
  }
  toString = () => `admin raises vcpu to ${this.vcpu} in ${this.region}`;
}

/**
 * An event every model endpoint subscribes to (`order.*`): a delivery queued for each,
 * so deleting one is refused (409 endpoint_has_pending_deliveries, the service disables
 * it) until `drain` delivers them (the emulator's worker).
 */
class Deliveries implements fc.AsyncCommand<Model, Real> {
  constructor(readonly what: "queue" | "drain") {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    if (this.what === "drain") {
      await r.world.control("POST", "/webhooks/worker/run", {});
      r.log.push(`${this}`);
      return;
    }
    const before = new Set([...(await r.world.holdings()).values()].flat());
    const res = await r.world.api("POST", "/webhooks/v1/events", { event_type: "order.created", payload: { id: "model" } });
    // Under the lenient policy the service registers the event's type itself: the service's, no stack's.
    const registered = [...(await r.world.holdings()).values()].flat().filter((id) => !before.has(id));
    m.others = new Set([...m.others, ...registered]);
    r.log.push(`${this}: ${res.status}${registered.length ? `; the service registered ${registered.join(", ")}` : ""}`);
  }
  toString = () => (this.what === "queue" ? "deliveries queued (an order.created event)" : "deliveries drained");
}

/**
 * Another stack (its own state, the same workspace and credentials)
 * deploys look-alikes of this stack's (an endpoint to the look-alike URL, an HTTP bin
 * with no label), sometimes with its creates' answers lost after the service acted.
 * Its objects are never this stack's, nor this stack's its (invariants.ts `others`).
 */
class SecondStack implements fc.AsyncCommand<Model, Real> {
  constructor(readonly loseAnswers: boolean) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const stack = "model-2";
    const spec: DeclaredResource[] = [
      { kind: "webhooks:Endpoint", name: "other-endpoint", args: KINDS["webhooks:Endpoint"].args(0, 0, true), aliases: [] },
      { kind: "inboxes:Inbox", name: "other-bin", args: KINDS["inboxes:Inbox"].args(0, 0, true), aliases: [] },
    ];
    const before = new Set([...(await r.world.holdings()).values()].flat());
    if (this.loseAnswers) await r.world.control("POST", "/faults", { method: "POST", path: FAULTED, count: 2, drop_after_response: true });
    let outcome;
    try {
      outcome = await r.world.run("up", spec, undefined, stack);
    } finally {
      await r.world.control("DELETE", "/faults");
    }
    const theirs = r.world.state(stack).resources.filter((x) => !x.delete).map((x) => x.id!);
    const ours = new Set(r.world.state(MAIN_STACK).resources.map((x) => x.id!));
    const now = new Set([...(await r.world.holdings()).values()].flat());
    const made = [...now].filter((id) => !before.has(id));
    r.log.push(`${this}: exit ${outcome.exitCode}; it holds ${theirs.join(", ") || "nothing"}`);
    const taken = theirs.filter((id) => ours.has(id));
    if (taken.length) throw new InvariantViolation("1", `the second stack holds objects this stack holds: ${taken.join(", ")}`);
    const gone = [...ours].filter((id) => before.has(id) && !now.has(id));
    if (gone.length) throw new InvariantViolation("1", `the second stack's up removed this stack's objects: ${gone.join(", ")}`);
    const errors = outcome.result?.diagnostics.filter((d) => d.severity === "error").map((d) => d.message).join("\n") ?? outcome.text;
    const unheld = made.filter((id) => !theirs.includes(id) && !(outcome.exitCode !== 0 && errors.includes(id)));
    if (unheld.length) throw new InvariantViolation(outcome.exitCode === 0 ? "1" : "2", `the second stack's up (exit ${outcome.exitCode}) made objects it does not hold${outcome.exitCode === 0 ? "" : " and does not name"}: ${unheld.join(", ")}`);
    if (outcome.exitCode === 0 && theirs.length !== spec.length) throw new InvariantViolation("1", `the second stack's up exited 0 holding ${theirs.length} objects for ${spec.length} resources`);
    m.others = new Set([...m.others, ...theirs, ...made]);
  }
  toString = () => `a second stack deploys look-alikes${this.loseAnswers ? ", its answers lost" : ""}`;
}

// ---- the arbitrary ----------------------------------------------------------------

const LOOK_ALIKE_KINDS: ResourceKind[] = ["webhooks:Endpoint", "inboxes:Inbox"];

export function commandsArbitrary(opts: ModelOptions, maxCommands: number) {
  const index = fc.nat({ max: 7 });
  const faults: FaultKind[] = ["429", "500", "503", "drop", "drop-after-acting", "late-create", "latency", ...(opts.lateCreates ? (["late-create-4s"] as const) : [])];
  const add = fc
    .tuple(fc.constantFrom(...RESOURCE_KINDS), opts.lookAlikes ? fc.boolean() : fc.constant(false))
    .map(([kind, lookAlike]) => new Add(kind, lookAlike && LOOK_ALIKE_KINDS.includes(kind), opts.maxResources));
  const all: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
    add,
    add,
    add,
    index.map((i) => new Change(i)),
    index.map((i) => new Remove(i)),
    index.map((i) => new Rename(i, opts.aliases)),
    fc.constant(new Run("up")),
    fc.constant(new Run("up")),
    fc.constant(new Run("preview")),
    fc.constant(new Run("refresh")),
    fc.constant(new Run("destroy")),
    fc.tuple(fc.constantFrom(...faults), fc.constantFrom("POST" as const, "*" as const), fc.integer({ min: 1, max: 3 })).map(([f, on, n]) => new UpWithFault(f, on, n)),
    ...(opts.interruptions
      ? [fc.tuple(fc.constantFrom("SIGINT" as const, "SIGKILL" as const), fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 300, 1500), fc.boolean()).map(([s, w, d, c]) => new Interrupt(s, w, d, c))]
      : []),
    fc.tuple(fc.constantFrom("change" as const, "delete" as const, "headers" as const), index).map(([w, i]) => new OutOfBand(w, i)),
    index.map((i) => new RenameAdopting(i)),
    fc.tuple(fc.constantFrom(...QUOTA_REGIONS), fc.integer({ min: 201, max: 400 })).map(([region, vcpu]) => new AdminRaise(region, vcpu)),
    fc.constantFrom("queue" as const, "drain" as const).map((w) => new Deliveries(w)),
    fc.boolean().map((lose) => new SecondStack(lose)),
    // A fault class, when on, also gets commands of its own, so a short run meets it.
    ...(opts.lateCreates ? [fc.constant(new UpWithFault("late-create-4s", "POST", 1))] : []),
    ...(opts.lookAlikes ? [fc.constantFrom("drop-after-acting" as const, "late-create" as const).map((f) => new UpWithFault(f, "POST", 2))] : []),
    ...(opts.interruptions ? [fc.constantFrom("SIGINT" as const, "SIGKILL" as const).map((sig) => new Interrupt(sig, 1, 300, true))] : []),
    ...(opts.interruptions && opts.freshRunners ? [fc.constant(new KilledQuotaRequestCreate(opts.maxResources))] : []),
  ];
  // Every sequence starts from a program of one to three resources: runs of an empty program test nothing.
  return fc.record({ initial: fc.array(add, { minLength: 1, maxLength: 3 }), commands: fc.commands(all, { maxCommands }) });
}

/** The model and the system a sequence starts from: the initial resources are in the program, nothing is deployed. */
export async function startSequence(initial: Add[], real: Real): Promise<Model> {
  const m = initialModel();
  for (const add of initial) if (add.check(m)) await add.run(m, real);
  return m;
}
