/**
 * One lifecycle contract for every registered kind, driven by the kind's definition
 * (provider/registry.ts) and its fixture (fixtures.ts), against the emulator over HTTP,
 * calls counted from its request log. Two stacks run it: the provider in-process in the
 * real engine's call order (test/support/lifecycle-driver.ts; contract.test.ts, the inner
 * loop: every part), and the real Pulumi CLI (contract-cli.test.ts: the parts only the
 * engine can judge, said there). The parts:
 *
 * - create: one create call per kind (a setting: its writes), and what the service
 *   holds equals the state's outputs;
 * - no-op: preview and up, every resource the same, no write;
 * - updates: each updatable field changed alone: the step shows that field, and exactly
 *   the call its mode gives (PATCH of the item, PUT of the sub-resource, POST of the
 *   action) is made, leaving every other field in the service as it was; each round is
 *   previewed first, and the preview writes nothing and shows the up's steps;
 * - drift: an out-of-band change: refresh shows drift on exactly that field (no internal
 *   key) and keeps every other declared input as it was, up restores it with one call;
 * - gone: an out-of-band delete: refresh drops it, up creates it again; the same up
 *   adopts an object of each kind made outside Pulumi with its adoption input: no write;
 * - replaces: each replace-on-change field, previewed as updates are: a replacement,
 *   deleted first exactly when the kind's unique name is kept, else created first;
 * - destroy: resources removed from the program (the adopted ones) are previewed as deletes
 *   with no write, then deleted by an up; the service holds nothing the stack made (a setting is back to what was
 *   found, which the fixture makes differ from what the stack leaves and from scope to
 *   scope); a second destroy writes nothing;
 * - secrets: no fixture secret or API key in plaintext in any run's output or state.
 *
 * Every kind lives in ONE stack and each step applies the next change of every kind at
 * once; calls are told apart by kind from the request log, and a failure names the kind
 * and the field.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator";
import { fieldEqual } from "../../provider/engine/diff";
import { fieldEntries, isInputField, type ResourceDefinition } from "../../provider/engine/fields";
import { ownerField } from "../../provider/engine/owner";
import { createBody, remoteFields } from "../../provider/engine/values";
import { DEFINITIONS } from "../../provider/registry";
import { RESOURCE_KINDS, type ResourceKind } from "../../sdk/tokens";
import type { Workspace } from "../provider/support";
import { call, control, lastSeq, useEmulator } from "../support/emulator";
import { FIXTURES, type FixtureContext, type KindFixture, type Props } from "./fixtures";
import { callsSince, type Declared } from "./stack";

const registered = RESOURCE_KINDS.filter((k) => DEFINITIONS[k]);
const kinds = registered.filter((k) => FIXTURES[k]);
const def = (kind: ResourceKind) => DEFINITIONS[kind]!;
const fixture = (kind: ResourceKind) => FIXTURES[kind]!;

/** The fixtures' own checks (run once, by the inner loop's suite). */
export const checkFixtures = () =>
  describe("lifecycle fixtures", () => {
    it("every registered kind has one", () => {
      expect(registered.filter((k) => !FIXTURES[k]), "registered kinds without a lifecycle fixture (test/lifecycle/fixtures.ts)").toEqual([]);
    });

    it("each changes every updatable and create-only field of its kind, or says why not", () => {
      const ctx = NO_CTX;
      for (const kind of kinds) {
        const f = fixture(kind);
        const covered = new Set([...Object.keys(f.updates?.(ctx) ?? {}), ...Object.keys(f.replaces?.(ctx) ?? {}), ...Object.keys(f.skip ?? {})]);
        const changeable = fieldEntries(def(kind)).filter(([, s]) => ["patch", "put", "action"].includes(s.mode) || (s.mode === "createOnly" && s.api));
        expect(changeable.map(([n]) => n).filter((n) => !covered.has(n)), `${kind}: fields no step changes and no reason skips`).toEqual([]);
        for (const n of Object.keys(f.updates?.(ctx) ?? {})) expect(["patch", "put", "action"], `${kind}.${n} in updates`).toContain(def(kind).fields[n]?.mode);
        for (const n of Object.keys(f.replaces?.(ctx) ?? {})) expect(def(kind).fields[n]?.mode, `${kind}.${n} in replaces`).toBe("createOnly");
      }
    });
  });

/* ---------- helpers over the definitions ---------- */

const stripQuery = (path: string) => path.split("?")[0]!;
const itemPath = (kind: ResourceKind, id: string) => stripQuery(def(kind).paths.item(id));
const createCall = (kind: ResourceKind) => `POST ${stripQuery(def(kind).paths.create)}`;

/** The one call a change of `field` makes, from its mode. */
function updateCall(kind: ResourceKind, field: string, id: string): string {
  const spec = def(kind).fields[field]!;
  const item = itemPath(kind, id);
  if (spec.mode === "put") return `PUT ${item}${spec.put!.path}`;
  if (spec.mode === "action") return `POST ${item}${spec.action!.path}`;
  return `PATCH ${item}`;
}

/** Input fields the service returns (compared between reads). */
const readableInputs = (d: ResourceDefinition) => fieldEntries(d).filter(([, s]) => isInputField(s) && s.api && !s.writeOnly && s.mode !== "action" && s.mode !== "local");

/** True when the value holds a `{ $secret: k }` reference: the program passes it as a secret. */
const isSecretRef = (v: unknown): boolean => JSON.stringify(v ?? null).includes('"$secret"');

/** A `{ $secret: k }` value replaced by the fixture's secret k (given to `wrap`: the program makes it a secret). */
export function resolved(f: KindFixture, v: unknown, wrap: (secret: string) => unknown = (x) => x): unknown {
  if (Array.isArray(v)) return v.map((x) => resolved(f, x, wrap));
  if (v && typeof v === "object") {
    const ref = (v as { $secret?: string }).$secret;
    if (ref !== undefined) return wrap(f.secrets![ref]!);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolved(f, x, wrap)]));
  }
  return v;
}

/* ---------- the contract ---------- */

/** How many runs the step of the i-th change of every kind takes: the longest list. */
const NO_CTX = { ws: { project_id: "proj_x" } as Workspace, otherProject: "proj_y" };
const rounds = (changes: (f: KindFixture) => Props | undefined) => Math.max(0, ...kinds.map((k) => Object.keys(changes(fixture(k)) ?? {}).length));
/** A test's time limit for n runs: a run takes seconds on a quiet machine, over a minute on a loaded one. */
const runs = (n: number) => Math.max(1, n) * 180_000;

/** A step of a run, as the contract reads it. */
export interface ContractStep {
  kind: ResourceKind | undefined;
  name: string;
  op: string;
  diffs: string[];
  replaces?: string[];
  deleteBeforeReplace?: boolean;
}

/** A resource of the stack's state after a run, secrets in plaintext. */
export interface ContractResource {
  kind: ResourceKind;
  name: string;
  id: string;
  /** As the state holds them after the run (a refresh's: what Read gave back). */
  inputs: Props;
  outputs: Props;
}

export interface ContractRun {
  ok: boolean;
  /** What failed, for an assertion's message. */
  errors: string;
  steps: ContractStep[];
  /** What the run printed and stored, as a reader of its output and state sees it (the secrets part scans it). */
  seen: string[];
}

/** One stack of the lifecycle program (test/lifecycle/program) declaring `Declared` resources, run one operation at a time. */
export interface ContractStack {
  run(verb: "preview" | "up" | "refresh" | "destroy", declared: Declared[]): Promise<ContractRun>;
  /** The state after the last run. */
  resources(): ContractResource[];
}

export type ContractPart = "create" | "no-op" | "updates" | "drift" | "gone" | "replaces" | "destroy" | "secrets";

export interface ContractScope {
  /** The parts run; the others are skipped, named in the report. */
  parts: readonly ContractPart[];
  /** The stack, on the emulator and a workspace; `dir` a temp directory of the suite's own. */
  stack(emu: RunningEmulator, ws: Workspace, dir: string): ContractStack;
  /** At most this many rounds of updates and of replacements (default: all). */
  rounds?: number;
}

/** The contract's suite body (for a `describe`) over one stack. */
export const lifecycleContract = (spec: ContractScope) => () => contract(spec);

function contract(spec: ContractScope) {
  // A part this suite leaves out is skipped with the reason in its name: the inner loop (contract.test.ts) runs every part.
  const skipped = (name: string, fn: () => unknown, timeout?: number) => it.skip(`${name} (skipped here: test/lifecycle/contract.test.ts runs this part in the inner loop)`, fn, timeout);
  const part = (p: ContractPart) => (spec.parts.includes(p) ? it : skipped);
  const limit = (n: number) => Math.min(n, spec.rounds ?? n);
  let stack: ContractStack;
  const emu = useEmulator();
  let ws: Workspace;
  let dir: string;
  let otherProject: string;
  const ctx = (): FixtureContext => ({ ws, otherProject });
  /** What the program declares now, by kind. */
  const inputs = new Map<ResourceKind, Props>();
  const adopted = new Map<ResourceKind, Props>();
  /** Every id each kind's resources had, for the destroy check. */
  const idsSeen = new Map<ResourceKind, Set<string>>();
  /** A setting's values found before the stack took it over, by scope id. */
  const found = new Map<ResourceKind, Map<string, Props>>();
  const seen: string[] = [];

  const nameOf = (kind: ResourceKind) => kind.split(":")[1]!.toLowerCase();
  const keyOf = (kind: ResourceKind) => (ws as unknown as Record<string, Record<string, string>>)[def(kind).product]![fixture(kind).key ?? "admin"]!;
  const api = (kind: ResourceKind, method: string, path: string, body?: unknown) => call(emu(), method, `/${def(kind).product}${path}`, { key: keyOf(kind), body });
  const remote = async (kind: ResourceKind, id: string) => {
    const res = await api(kind, "GET", def(kind).paths.item(id));
    return res.status === 200 ? (res.body as Props) : undefined;
  };

  function declared(): Declared[] {
    const out: Declared[] = [];
    for (const kind of kinds) {
      out.push({ kind, name: nameOf(kind), inputs: inputs.get(kind)! });
      if (adopted.has(kind)) out.push({ kind, name: `adopted-${nameOf(kind)}`, inputs: adopted.get(kind)! });
    }
    return out;
  }

  /** The state after the last run, read once per run. */
  let current: ContractResource[] = [];
  const state = () => current;
  const resourceOf = (kind: ResourceKind, name = nameOf(kind)): ContractResource | undefined => state().find((r) => r.kind === kind && r.name === name);
  const idOf = (kind: ResourceKind) => resourceOf(kind)!.id;

  /** One run of the stack; every call it made, told apart by kind. */
  async function run(verb: "preview" | "up" | "refresh" | "destroy"): Promise<{ r: ContractRun; writes: (kind: ResourceKind) => string[]; all: string[] }> {
    const since = await lastSeq(emu());
    const r = await stack.run(verb, declared());
    current = stack.resources();
    const all = (await callsSince(emu(), since)).filter((c) => !c.startsWith("GET "));
    seen.push(...r.seen);
    for (const res of state()) idsSeen.set(res.kind, (idsSeen.get(res.kind) ?? new Set()).add(res.id));
    return { r, all, writes: (kind) => all.filter((c) => kindOfCall(c) === kind) };
  }

  /** The kind a call belongs to: the longest create or item path of a known id it starts with. */
  function kindOfCall(c: string): ResourceKind | undefined {
    const path = c.slice(c.indexOf(" ") + 1);
    let best: [ResourceKind, number] | undefined;
    for (const kind of kinds) {
      const prefixes = [stripQuery(def(kind).paths.create), ...[...(idsSeen.get(kind) ?? [])].map((id) => itemPath(kind, id))];
      for (const p of prefixes) if ((path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`)) && (!best || p.length > best[1])) best = [kind, p.length];
    }
    return best?.[0];
  }

  const stepOf = (r: ContractRun, kind: ResourceKind, name = nameOf(kind)) => r.steps.find((s) => s.kind === kind && s.name === name);

  /**
   * Every scope a setting's resource will hold (its inputs, then each replacement's), as
   * found before the stack's first write: a project's value read later could be inherited
   * from the workspace's, which the stack holds by then.
   */
  async function rememberSettings() {
    for (const kind of kinds) {
      let declared = inputs.get(kind)!;
      await rememberSetting(kind, declared);
      for (const [field, value] of Object.entries(fixture(kind).replaces?.(ctx()) ?? {})) await rememberSetting(kind, (declared = { ...declared, [field]: value }));
    }
  }

  async function rememberSetting(kind: ResourceKind, kindInputs: Props) {
    const d = def(kind);
    if (!d.singleton) return;
    const scope = d.singleton.idOf(resolved(fixture(kind), kindInputs) as Props);
    const map = found.get(kind) ?? new Map<string, Props>();
    if (!map.has(scope)) map.set(scope, writable(d, (await remote(kind, scope))!));
    found.set(kind, map);
  }
  const writable = (d: ResourceDefinition, body: Props) => {
    const fields = remoteFields(d, body);
    return Object.fromEntries(fieldEntries(d).filter(([n, s]) => ["patch", "put"].includes(s.mode) && n in fields).map(([n]) => [n, fields[n]]));
  };

  beforeAll(async () => {
    ws = await control<Workspace>(emu(), "POST", "/workspaces", { plan: "pro" });
    otherProject = (await control<{ id: string }>(emu(), "POST", "/projects", { workspace_id: ws.workspace_id, name: "other" })).id;
    dir = mkdtempSync(join(tmpdir(), "svc-lifecycle-"));
    stack = spec.stack(emu(), ws, dir);
    for (const kind of kinds) {
      inputs.set(kind, fixture(kind).inputs(ctx()));
      for (const w of fixture(kind).found?.(ctx()) ?? []) {
        const res = await api(kind, w.method, w.path, w.body);
        expect(res.status, `${kind} found values: ${res.text}`).toBeLessThan(300);
      }
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  part("create")("create: one create call per kind (a setting: its writes), and the service holds what the state says", async () => {
    await rememberSettings();
    const { r, writes } = await run("up");
    expect(r.ok, r.errors).toBe(true);
    for (const kind of kinds) {
      expect.soft(stepOf(r, kind)?.op, kind).toBe("create");
      const id = idOf(kind);
      const onItem = (w: string) => w.slice(w.indexOf(" ") + 1).startsWith(itemPath(kind, id));
      if (def(kind).singleton) expect.soft(writes(kind).length > 0 && writes(kind).every(onItem), `${kind}: ${writes(kind).join(", ")}`).toBe(true);
      else expect.soft(writes(kind), kind).toEqual([createCall(kind)]);
      const held = remoteFields(def(kind), (await remote(kind, id))!);
      const outputs = resourceOf(kind)!.outputs as Props;
      for (const [field, value] of Object.entries(held)) expect.soft(outputs[field], `${kind}.${field}: state vs service`).toEqual(value);
    }
  }, runs(1));

  part("no-op")("no-op preview and up: every resource the same, no write", async () => {
    for (const verb of ["preview", "up"] as const) {
      const { r, all } = await run(verb);
      expect(r.ok, r.errors).toBe(true);
      for (const kind of kinds) expect.soft(stepOf(r, kind)?.op, `${verb} ${kind}`).toBe("same");
      expect.soft(all, verb).toEqual([]);
    }
  }, runs(2));


  /**
   * The round-th change of every kind's list, previewed then applied in one up (`before`
   * taken first): the preview writes nothing and shows each changed kind's step as the up
   * makes it; kinds with no change in the round write nothing. The changed kinds, their
   * field and `before`.
   */
  async function changeRound<T>(round: number, changes: (f: KindFixture) => Props | undefined, before: (kind: ResourceKind) => Promise<T>) {
    const changing = new Map<ResourceKind, [string, T]>();
    for (const kind of kinds) {
      const entry = Object.entries(changes(fixture(kind)) ?? {})[round];
      if (!entry) continue;
      changing.set(kind, [entry[0], await before(kind)]);
      inputs.set(kind, { ...inputs.get(kind)!, [entry[0]]: entry[1] });
    }
    const changed = [...changing].map(([kind, [field]]) => `${kind}.${field}`).join(", ");
    const preview = await run("preview");
    expect(preview.r.ok, preview.r.errors).toBe(true);
    expect.soft(preview.all, `round ${round} (${changed}): the preview writes nothing`).toEqual([]);
    const { r, writes } = await run("up");
    expect(r.ok, r.errors).toBe(true);
    const shown = (step: ContractStep | undefined) => step && { op: step.op, diffs: step.diffs, replaces: step.replaces, deleteBeforeReplace: step.deleteBeforeReplace };
    for (const [kind, [field]] of changing) expect.soft(shown(stepOf(preview.r, kind)), `round ${round}: the preview of ${kind}.${field} shows what the up does`).toEqual(shown(stepOf(r, kind)));
    for (const kind of kinds) if (!changing.has(kind)) expect.soft(writes(kind), `round ${round} changes ${changed}; ${kind} changes nothing in it, yet wrote`).toEqual([]);
    return { r, writes, changing };
  }

  part("updates")("each updatable field changed alone: exactly its call, nothing else changes in the service", async () => {
    const n = limit(rounds((f) => f.updates?.(NO_CTX)));
    for (let round = 0; round < n; round++) {
      const { r, writes, changing } = await changeRound(round, (f) => f.updates?.(ctx()), (kind) => remote(kind, idOf(kind)));
      for (const [kind, [field, before]] of changing) {
        const id = idOf(kind);
        // The real engine masks secret values in what it shows, and the dynamic provider names no
        // changed keys: a change of a secret input is an update that names no field there.
        const shown = isSecretRef(inputs.get(kind)![field]) ? [] : [field];
        expect.soft(stepOf(r, kind), `${kind}.${field}`).toMatchObject({ op: "update", diffs: shown });
        expect.soft(writes(kind), `${kind}.${field}`).toEqual([updateCall(kind, field, id)]);
        const after = remoteFields(def(kind), (await remote(kind, id))!);
        const prior = remoteFields(def(kind), before!);
        const outputs = resourceOf(kind)!.outputs as Props;
        for (const [other] of readableInputs(def(kind))) {
          if (other !== field) expect.soft(after[other], `${kind}: changing ${field} left ${other} alone`).toEqual(prior[other]);
          expect.soft(outputs[other], `${kind}.${other} after changing ${field}: state vs service`).toEqual(after[other]);
        }
      }
    }
  }, runs(limit(rounds((f) => f.updates?.(NO_CTX)))));

  part("drift")("an out-of-band change: refresh shows drift on exactly that field; up puts it back with one call", async () => {
    const changed = new Map<ResourceKind, string>();
    for (const kind of kinds) {
      const oob = fixture(kind).outOfBand;
      if ("none" in oob) continue;
      const w = oob(ctx(), idOf(kind));
      const res = await api(kind, w.method, w.path, w.body);
      expect(res.status, `${kind}: ${res.text}`).toBeLessThan(300);
      changed.set(kind, w.field);
    }
    const declaredBefore = new Map(kinds.map((kind) => [kind, resourceOf(kind)!.inputs]));
    const refresh = await run("refresh");
    expect(refresh.r.ok, refresh.r.errors).toBe(true);
    expect.soft(refresh.all, "refresh writes").toEqual([]);
    for (const kind of kinds) {
      // What Read gives back as the inputs is what the state keeps: every declared input but the drifted one as it was
      // (a write-only one as its seal, which the service cannot show: provider/engine/sealed.ts).
      const kept = (inputs: Props) =>
        Object.fromEntries(Object.keys(fixture(kind).inputs(ctx())).filter((k) => k !== changed.get(kind) && !def(kind).fields[k]?.writeOnly).map((k) => [k, inputs[k]]));
      expect.soft(kept(resourceOf(kind)!.inputs), `${kind}: refresh gives back the declared inputs that did not drift`).toEqual(kept(declaredBefore.get(kind)!));
      const step = stepOf(refresh.r, kind)!;
      // The inputs the fixture declares, and the internal keys (never shown: they did not move):
      // a field the fixture leaves to the service (e.g. projectId) is read back by refresh.
      const inputNames = Object.keys(inputs.get(kind) ?? {});
      const field = changed.get(kind);
      if (!field) expect.soft(step.op, `${kind}: no drift`).toBe("same");
      else expect.soft([step.op, step.diffs.filter((k) => inputNames.includes(k) || k.startsWith("__"))], `${kind}: refresh shows drift of ${field} alone`).toEqual(["update", [field]]);
    }
    const { r, writes } = await run("up");
    expect(r.ok, r.errors).toBe(true);
    for (const kind of kinds) {
      const field = changed.get(kind);
      if (!field) {
        expect.soft(writes(kind), kind).toEqual([]);
        continue;
      }
      const id = idOf(kind);
      expect.soft(writes(kind), `${kind}.${field} restored`).toEqual([updateCall(kind, field, id)]);
      const held = remoteFields(def(kind), (await remote(kind, id))!);
      const spec = def(kind).fields[field]!;
      expect.soft(fieldEqual(spec, resolved(fixture(kind), inputs.get(kind)![field]), held[field]), `${kind}.${field}: ${JSON.stringify(held[field])}`).toBe(true);
    }
  }, runs(2));

  part("gone")("an out-of-band delete: refresh drops it, up creates it again (settings cannot be deleted); adoption of an object made outside Pulumi writes only the owner mark, where its owner field is free", async () => {
    const objects = kinds.filter((k) => !def(k).singleton);
    for (const kind of objects) {
      const res = await api(kind, "DELETE", def(kind).paths.item(idOf(kind)));
      expect(res.status, `${kind}: ${res.text}`).toBeLessThan(300);
    }
    const refresh = await run("refresh");
    expect(refresh.r.ok, refresh.r.errors).toBe(true);
    for (const kind of kinds) expect.soft(stepOf(refresh.r, kind)?.op, kind).toBe(def(kind).singleton ? "same" : "delete");
    for (const kind of objects) expect.soft(resourceOf(kind), `${kind} dropped from the state`).toBeUndefined();
    // The same up adopts an object of each kind made outside Pulumi (one run less).
    await makeObjectsToAdopt();
    const { r, writes } = await run("up");
    expect(r.ok, r.errors).toBe(true);
    for (const kind of kinds) {
      if (adopted.has(kind)) expect.soft(stepOf(r, kind, `adopted-${nameOf(kind)}`)?.op, `${kind} adopted`).toBe("create");
      if (def(kind).singleton) {
        expect.soft(writes(kind), kind).toEqual([]);
        continue;
      }
      expect.soft(stepOf(r, kind)?.op, kind).toBe("create");
      // The adoption writes only the adopter's owner mark, where the kind's owner field is free (unset in the program, empty on the object).
      const adoptedAs = adopted.get(kind);
      const adoptedId = typeof adoptedAs?.adoptId === "string" ? adoptedAs.adoptId : undefined;
      const owner = ownerField(def(kind));
      const marks = adoptedId !== undefined && owner?.rewritable === true && (adoptedAs![owner.name] ?? null) === null;
      const ofAdopted = (w: string) => adoptedId !== undefined && !w.startsWith("POST ") && w.split(" ")[1] === itemPath(kind, adoptedId);
      expect.soft(writes(kind).filter(ofAdopted), `${kind} adoption`).toEqual(marks ? [`PATCH ${itemPath(kind, adoptedId!)}`] : []);
      // The recreation: the create, and fields create does not take (a status) in one update call.
      const [first, ...rest] = writes(kind).filter((w) => !ofAdopted(w));
      expect.soft(first, kind).toBe(createCall(kind));
      expect.soft(rest, kind).toEqual(rest.length ? [`PATCH ${itemPath(kind, idOf(kind))}`] : []);
    }
  }, runs(2));

  /** Adoption: an object made with the API from the fixture's inputs, declared as the service holds it plus the kind's adoption input. */
  async function makeObjectsToAdopt() {
    for (const kind of kinds) {
      const adopt = fixture(kind).adopt;
      if ("none" in adopt) continue;
      const d = def(kind);
      const res = await api(kind, "POST", d.paths.create, createBody(d, adopt.inputs(ctx())));
      expect(res.status, `${kind}: ${res.text}`).toBeLessThan(300);
      const id = d.idOf ? d.idOf(res.body) : String(res.body[d.idField ?? "id"]);
      const held = remoteFields(d, res.body);
      const asHeld = Object.fromEntries(readableInputs(d).filter(([n]) => held[n] !== null && held[n] !== undefined).map(([n]) => [n, held[n]]));
      adopted.set(kind, { ...asHeld, ...adopt.inputs(ctx()), ...adopt.declare(id) });
    }
  }

  part("replaces")("each replace-on-change field: a replacement, deleted first exactly when the unique name is kept", async () => {
    const n = limit(rounds((f) => f.replaces?.(NO_CTX)));
    for (let round = 0; round < n; round++) {
      const { r, writes, changing } = await changeRound(round, (f) => f.replaces?.(ctx()), async (kind) => idOf(kind));
      for (const [kind, [field, oldId]] of changing) {
        const d = def(kind);
        const keysName = fieldEntries(d).some(([, s]) => s.uniqueName) && !d.fields[field]!.uniqueName;
        expect.soft(stepOf(r, kind), `${kind}.${field}`).toMatchObject({ op: "replace", replaces: [field], deleteBeforeReplace: keysName });
        if (d.singleton) {
          expect.soft(writes(kind).length, `${kind}.${field}`).toBeGreaterThan(0);
          expect.soft(writable(d, (await remote(kind, oldId))!), `${kind}: the old scope ${oldId} put back to what was found there`).toEqual(found.get(kind)!.get(oldId));
          continue;
        }
        const w = writes(kind);
        const [created, deleted] = [w.indexOf(createCall(kind)), w.indexOf(`DELETE ${itemPath(kind, oldId)}`)];
        expect.soft(created >= 0 && deleted >= 0, `${kind}.${field}: ${w.join(", ")}`).toBe(true);
        expect.soft(keysName ? deleted < created : created < deleted, `${kind}.${field} order: ${w.join(", ")}`).toBe(true);
        // A kind whose id is its unique name (an event type's scope/name) keeps it when deleted first.
        if (!keysName) expect.soft(idOf(kind), kind).not.toBe(oldId);
      }
    }
  }, runs(limit(rounds((f) => f.replaces?.(NO_CTX)))));

  part("destroy")("resources removed from the program: previewed as deletes with no write, then deleted; destroy: the service holds nothing the stack made, settings are back to what was found; a second destroy writes nothing", async () => {
    const removed = [...adopted.keys()];
    if (removed.length > 0) {
      adopted.clear();
      const preview = await run("preview");
      expect(preview.r.ok, preview.r.errors).toBe(true);
      expect.soft(preview.all, "the preview of removed resources writes nothing").toEqual([]);
      const up = await run("up");
      expect(up.r.ok, up.r.errors).toBe(true);
      for (const kind of removed)
        for (const [verb, result] of [["preview", preview.r], ["up", up.r]] as const) expect.soft(stepOf(result, kind, `adopted-${nameOf(kind)}`)?.op, `${kind}: the ${verb} of the program without adopted-${nameOf(kind)}`).toBe("delete");
      expect.soft(state().filter((res) => res.name.startsWith("adopted-")), "removed resources left in the state").toEqual([]);
    }
    const { r } = await run("destroy");
    expect(r.ok, r.errors).toBe(true);
    expect(state()).toEqual([]);
    for (const kind of kinds) {
      const d = def(kind);
      if (d.singleton) {
        // A replacement's value found is its own scope's, read by its own Check (the engine's second Check, on empty olds).
        for (const [scope, values] of found.get(kind)!) expect.soft(writable(d, (await remote(kind, scope))!), `${kind} ${scope}: put back what was found there before (for a replacement's scope: what its second Check read)`).toEqual(values);
        continue;
      }
      for (const id of idsSeen.get(kind) ?? []) {
        const held = await remote(kind, id);
        expect.soft(held === undefined || d.hooks?.goneWhen?.(held) === true, `${kind} ${id} still held: ${JSON.stringify(held)}`).toBe(true);
      }
    }
    const again = await run("destroy");
    expect(again.r.ok, again.r.errors).toBe(true);
    expect(again.r.steps).toEqual([]);
    expect(again.all).toEqual([]);
  }, runs(4));

  part("secrets")("no fixture secret in plaintext in any state file or run output", () => {
    const text = seen.join("\n");
    for (const kind of kinds) for (const [name, value] of Object.entries(fixture(kind).secrets ?? {})) expect.soft(text.includes(value), `${kind} secret ${name}`).toBe(false);
    for (const key of [ws.webhooks.admin, ws.inboxes.admin, ws.infra.admin, ws.infra.member]) expect.soft(text.includes(key), "an API key").toBe(false);
  });
}
