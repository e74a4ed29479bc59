#!/usr/bin/env node
/**
 * `pulumi-svc recover`: resolve an interrupted run's pending operations from the backend
 * alone (provider/README.md, "Ownership"; README, "When a run is interrupted").
 *
 * A killed `up` leaves its creates in the stack's state as pending `creating` operations,
 * their checked inputs (and so the owner token) with them. For each, the kind is listed
 * where the create would have made it: exactly one object carrying the token is this
 * resource's and becomes it (when the URN already has an entry, a replacement's or a later
 * run's, that entry is kept for deletion, so the next `up` deletes it); none, looked for
 * again after the reconcile window (the service may still be acting on the create), means
 * the create made nothing and the entry is dropped; a create that could not mark its
 * object (the program set the owner field, or the kind has none) is left to the user with
 * its candidates (objects no entry of the state holds) and the command to adopt one. A
 * pending `deleting` whose object is gone is dropped. Uses the `pulumi` on PATH; API keys
 * are never printed.
 */
import { spawnSync } from "node:child_process";
import { withArticle } from "../rules/names";
import { isApiError } from "../provider/client";
import { profileOf, reconcileWindowSeconds, type ConfigSource } from "../provider/config";
import { operationContext } from "../provider/engine/engine-operation";
import type { Props, ResourceDefinition } from "../provider/engine/fields";
import { CREATED_IN_KEY, FOUND_KEY, WORKSPACE_KEY } from "../provider/engine/internal-keys";
import { blindToCreate, knownWorkspace, outOfReach, reachOf } from "../provider/engine/reach";
import { markedBody, markedOwner, ownerTokenOf } from "../provider/engine/owner";
import { listObjects, sameDeclaredFields } from "../provider/engine/reconcile";
import { createBody, objectId } from "../provider/engine/values";
import { RESOURCE_KINDS, type ResourceKind } from "../provider/kinds";
import { DEFINITIONS } from "../provider/registry";
import { TYPE_TOKENS } from "../sdk/tokens";

interface Options {
  stack?: string;
  cwd?: string;
  /** `--config-file`: the stack's config file, when it is not Pulumi.<stack>.yaml (config and refresh read it). */
  configFile?: string;
  dryRun: boolean;
  /** `--adopt URN=ID`: the user's word for a create that nothing proves. */
  adopt: Map<string, string>;
}

interface PendingOp {
  type: string;
  resource: { urn: string; type: string; inputs?: Props; outputs?: Props; id?: string; [k: string]: unknown };
}

interface Deployment {
  version: number;
  deployment: { resources?: Array<{ urn: string; [k: string]: unknown }>; pending_operations?: PendingOp[]; [k: string]: unknown };
}

/** What to do with one pending operation. */
type Outcome =
  /**
   * `found`: a setting's value found before its take-over (its pending create's), kept as the resource's `previous`;
   * `where`: the workspace the object lives in, recorded as its create records it (reach.ts): the key's that
   * found it (listed, read, or, for a setting, taken over with it).
   */
  | { urn: string; action: "adopt"; id: string; line: string; found?: { field: string; value: unknown }; where?: string }
  | { urn: string; action: "drop"; line: string }
  | { urn: string; action: "refresh"; line: string }
  | { urn: string; action: "keep"; line: string }
  | { urn: string; action: "ask"; line: string };

/** `pulumi-nodejs:dynamic/svc/webhooks:Endpoint` (SDK) or `svc:webhooks:Endpoint` (native plugin) → the kind. */
const KIND_BY_TOKEN = new Map<string, ResourceKind>(RESOURCE_KINDS.flatMap((k) => [[TYPE_TOKENS[k], k] as const, [`svc:${k}`, k] as const]));

function usage(): never {
  process.stderr.write("usage: pulumi-svc recover [--stack NAME] [--cwd DIR] [--config-file FILE] [--adopt URN=ID]... [--dry-run]\n");
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  if (argv[0] !== "recover") usage();
  const opts: Options = { dryRun: false, adopt: new Map() };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--dry-run") opts.dryRun = true;
    else if (a === "--stack" || a === "-s") opts.stack = argv[++i] ?? usage();
    else if (a === "--cwd" || a === "-C") opts.cwd = argv[++i] ?? usage();
    else if (a === "--config-file") opts.configFile = argv[++i] ?? usage();
    else if (a === "--adopt") {
      const pair = argv[++i] ?? usage();
      const at = pair.lastIndexOf("=");
      if (at <= 0) usage();
      opts.adopt.set(pair.slice(0, at), pair.slice(at + 1));
    }
    else usage();
  }
  return opts;
}

function pulumi(opts: Options, args: string[], input?: string): string {
  const readsConfig = args[0] === "config" || args[0] === "refresh";
  const full = [...args, "--non-interactive", ...(opts.stack ? ["--stack", opts.stack] : []), ...(opts.cwd ? ["--cwd", opts.cwd] : []), ...(readsConfig && opts.configFile ? ["--config-file", opts.configFile] : [])];
  const res = spawnSync("pulumi", full, { input, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (res.status !== 0 && /currently locked|update is currently in progress/i.test(res.stderr))
    throw new Error(`the stack is locked by a run that did not end (a killed one leaves its lock). If no other run of this stack is going on, run \`pulumi cancel --yes\`, then recover again.`);
  if (res.status !== 0) throw new Error(`pulumi ${args.join(" ")} failed (exit ${res.status ?? res.signal}):\n${res.stderr || res.stdout}`);
  return res.stdout;
}

/** The stack's `svc:` config as the provider reads it (provider/config.ts resolves it, else the SVC_* environment). */
function configSource(opts: Options): ConfigSource {
  const config = JSON.parse(pulumi(opts, ["config", "--json", "--show-secrets"]) || "{}") as Record<string, { value?: unknown; objectValue?: unknown }>;
  return (key) => {
    const entry = config[`svc:${key}`];
    const value = entry?.value ?? entry?.objectValue;
    return value === undefined ? undefined : typeof value === "string" ? value : JSON.stringify(value);
  };
}

/** Which state entry holds each id, per resource type (entries kept for deletion too: their objects are held until deleted). */
type Held = Map<string, Map<string, string>>;

function heldIds(deployment: Deployment["deployment"]): Held {
  const held: Held = new Map();
  for (const r of deployment.resources ?? []) {
    if (typeof r.id !== "string" || r.id === "" || typeof r.type !== "string") continue;
    if (!held.has(r.type)) held.set(r.type, new Map());
    held.get(r.type)!.set(r.id, r.urn);
  }
  return held;
}

/**
 * The user's word for one candidate. (\`pulumi refresh --import-pending-creates URN
 * --import-pending-creates ID\` resolves the entry too, but a dynamic resource imported so
 * is created again by the next \`up\`: its Read is not given the inputs.)
 */
const adoptCommand = (urn: string, id: string) => `pulumi-svc recover --adopt '${urn}=${id}'`;
/** `pulumi state delete` does not reach a pending create; this drops every one left, so it comes once the others are resolved. */
const DROP_COMMAND = `pulumi refresh --clear-pending-creates --yes (it drops every pending create left: resolve the others first)`;

/**
 * A pending create, judged only with a key that sees where it went (reach.ts `blindToCreate`): with a key of another
 * place nothing is done. One the state does not place (`blind`) is resolved by its owner mark alone, else left to the
 * user. An adopted object lives where the key that found it reaches, recorded as a create records it, so that a later
 * 404 is judged (a setting answers for whatever workspace the key reaches; an event type is known by its name only).
 */
async function resolvePendingCreate(def: ResourceDefinition, op: PendingOp, chosen: string | undefined, held: Map<string, string>, source: ConfigSource): Promise<Outcome> {
  const { urn, inputs = {} } = op.resource;
  const ctx = operationContext(def, profileOf(inputs), source);
  const reach = await reachOf(def, ctx, inputs);
  const blind = blindToCreate(def, reach, inputs, ctx);
  if (blind && inputs[CREATED_IN_KEY] !== undefined) {
    const next = reach
      ? "which cannot see what the create made there. Set the key it was made with and run `pulumi-svc recover` again"
      : "so finding nothing would prove nothing. Run `pulumi-svc recover` again; if it persists, check the key and the service's URL";
    return { urn, action: "ask", line: `${urn}: not resolved: ${blind}, ${next}. Nothing was changed.` };
  }
  const outcome = chosen !== undefined ? await adoptChosen(def, op, chosen, held, source) : await resolveCreate(def, op, held, source, blind);
  if (outcome.action === "adopt") outcome.where = knownWorkspace(reach);
  return outcome;
}

async function resolveCreate(def: ResourceDefinition, op: PendingOp, held: Map<string, string>, source: ConfigSource, blind: string | undefined): Promise<Outcome> {
  const { urn, inputs = {} } = op.resource;
  if (def.singleton) {
    const id = def.singleton.idOf(inputs as never);
    if (blind) return { urn, action: "ask", line: `${urn}: a take-over of ${def.noun} ${id} was interrupted, and ${blind}. If the key is the one it was made with, adopt the setting as it is now:\n  ${adoptCommand(urn, id)}` };
    const value = inputs[FOUND_KEY];
    // A pending create of a release before the Check read the value found (FOUND_KEY): not known.
    if (value === undefined)
      return { urn, action: "adopt", id, line: `${urn}: a take-over of ${def.noun} ${id} was interrupted; the value found before it is not known (the service holds what the killed run wrote). Imported as it is now; its destroy will leave the setting as it is.` };
    return {
      urn,
      action: "adopt",
      id,
      found: { field: def.singleton.priorField, value },
      line: `${urn}: a take-over of ${def.noun} ${id} was interrupted; imported, with the value found before it (${JSON.stringify(value)}), which its destroy puts back.`,
    };
  }
  const client = operationContext(def, profileOf(inputs), source).client;
  const body = markedBody(def, createBody(def, inputs), inputs);
  const token = ownerTokenOf(inputs);
  const marked = token !== undefined && markedOwner(def, body) === token;
  if (marked) {
    const carrying = async () => (await listObjects(def, client, body, inputs)).filter((o) => markedOwner(def, o) === token);
    let mine = await carrying();
    // A create the service is still acting on lands within the reconcile window (reconcile.ts): looked for again once it has passed.
    if (mine.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, reconcileWindowSeconds(source) * 1000));
      mine = await carrying();
    }
    if (mine.length === 1) {
      const id = objectId(def, mine[0]!);
      const holder = held.get(id);
      if (holder === urn) return { urn, action: "drop", line: `${urn}: the interrupted create's ${def.noun} ${id} is already this resource's in the state: the pending create is dropped.` };
      return { urn, action: "adopt", id, line: `${urn}: the interrupted create made ${def.noun} ${id} (it carries this resource's owner mark): adopted.` };
    }
    const looked = `no ${def.noun} carries its owner mark, looked for again after the ${reconcileWindowSeconds(source)} s reconcile window`;
    if (mine.length === 0 && blind) return { urn, action: "ask", line: `${urn}: ${looked}, but ${blind}. If the key is the one the create was made with, it made nothing; drop it: ${DROP_COMMAND}` };
    if (mine.length === 0) return { urn, action: "drop", line: `${urn}: the interrupted create made nothing (${looked}): dropped.` };
    const ids = mine.map((o) => objectId(def, o));
    return { urn, action: "ask", line: `${urn}: ${mine.length} ${def.noun}s carry this resource's owner mark (${ids.join(", ")}); keep one:\n  ${adoptCommand(urn, ids[0]!)}\n  and delete the others on the service.` };
  }
  const objects = await listObjects(def, client, body, inputs);
  // An object another entry of the state holds is that entry's, never a candidate.
  const candidates = objects.filter((o) => sameDeclaredFields(def, o, body)).map((o) => objectId(def, o)).filter((id) => !held.has(id));
  const why = def.ownerField ? `the program sets ${def.ownerField}, so the create could not mark its object` : `${withArticle(def.noun)} cannot carry an owner mark`;
  const lines = [`${urn}: the interrupted create's object cannot be proven (${why}).`];
  if (candidates.length === 0) lines.push(`  No ${def.noun} has its declared fields: the create most likely made nothing. To drop it: ${DROP_COMMAND}`);
  else {
    lines.push(`  Candidates (same declared fields): ${candidates.join(", ")}. To adopt one:`);
    for (const id of candidates) lines.push(`    ${adoptCommand(urn, id)}`);
    lines.push(`  Or, if none is this resource's, drop the pending create: ${DROP_COMMAND}`);
  }
  return { urn, action: "ask", line: lines.join("\n") };
}

/** `--adopt URN=ID`: the user's word, for an object that exists and that no other entry of the state holds. */
async function adoptChosen(def: ResourceDefinition, op: PendingOp, id: string, held: Map<string, string>, source: ConfigSource): Promise<Outcome> {
  const { urn } = op.resource;
  const holder = held.get(id);
  if (holder === urn) return { urn, action: "drop", line: `${urn}: ${def.noun} ${id} is already this resource's in the state: the pending create is dropped.` };
  if (holder !== undefined) return { urn, action: "ask", line: `${urn}: not adopted: ${def.noun} ${id} is held by ${holder} in this stack's state. Name another candidate, or drop the pending create: ${DROP_COMMAND}` };
  try {
    await operationContext(def, profileOf(op.resource.inputs), source).client.request<Props>({ method: "GET", path: def.paths.item(id) });
  } catch (err) {
    if (isApiError(err, 404)) return { urn, action: "ask", line: `${urn}: not adopted: there is no ${def.noun} ${id} on the service (the key of this stack cannot see one). Check the id.` };
    throw err;
  }
  return { urn, action: "adopt", id, line: `${urn}: adopted ${def.noun} ${id}, as you said.` };
}

async function resolveDelete(def: ResourceDefinition, urn: string, resource: PendingOp["resource"], source: ConfigSource): Promise<Outcome> {
  const id = resource.id;
  if (!id) return { urn, action: "drop", line: `${urn}: an interrupted delete of an object without id: dropped.` };
  if (def.singleton) return { urn, action: "keep", line: `${urn}: an interrupted delete of ${def.noun} ${id}: left in the state (the next destroy or up finishes it).` };
  const ctx = operationContext(def, profileOf(resource.inputs), source);
  // A 404 means "deleted" only to a key that sees where the object lives (reach.ts).
  const reach = await reachOf(def, ctx, resource.outputs);
  const blind = reach ? outOfReach(def, reach, id, resource.outputs) : "the workspace of the key in use could not be read (a 404 could not be told from another workspace's): run again. Nothing was changed.";
  if (blind) return { urn, action: "ask", line: `${urn}: not resolved: ${blind}` };
  try {
    await ctx.client.request<Props>({ method: "GET", path: def.paths.item(id) });
  } catch (err) {
    if (isApiError(err, 404)) return { urn, action: "refresh", line: `${urn}: the interrupted delete removed ${def.noun} ${id}: dropped from the state.` };
    throw err;
  }
  return { urn, action: "keep", line: `${urn}: ${def.noun} ${id} is still on the service: left in the state (the next destroy or up deletes it).` };
}

async function recover(opts: Options): Promise<number> {
  const source = configSource(opts);
  const plain = JSON.parse(pulumi(opts, ["stack", "export", "--show-secrets"])) as Deployment;
  const pending = plain.deployment.pending_operations ?? [];
  const held = heldIds(plain.deployment);
  const outcomes: Outcome[] = [];
  for (const op of pending) {
    const kind = KIND_BY_TOKEN.get(op.resource.type);
    const def = kind && DEFINITIONS[kind];
    if (!def) continue; // another package's resource: not ours to resolve
    const heldOfType = held.get(op.resource.type) ?? new Map<string, string>();
    const chosen = opts.adopt.get(op.resource.urn);
    let outcome: Outcome | undefined;
    if (op.type === "creating") outcome = await resolvePendingCreate(def, op, chosen, heldOfType, source);
    else if (op.type === "deleting") outcome = await resolveDelete(def, op.resource.urn, op.resource, source);
    if (outcome) outcomes.push(outcome);
  }
  for (const o of outcomes) process.stdout.write(`${o.line}\n`);
  const count = (a: Outcome["action"]) => outcomes.filter((o) => o.action === a).length;
  const unresolved = count("ask");
  process.stdout.write(
    `pulumi-svc recover: ${outcomes.length} pending operation(s) of svc resources; ${count("adopt")} adopted, ${count("drop")} dropped, ${count("refresh")} deleted ones dropped, ${count("keep")} left for the next run, ${unresolved} need your decision${opts.dryRun ? " (dry run: nothing changed)" : ""}.\n`,
  );
  if (opts.dryRun || outcomes.every((o) => o.action === "keep" || o.action === "ask")) return unresolved > 0 ? 1 : 0;
  applyOutcomes(opts, outcomes);
  return unresolved > 0 ? 1 : 0;
}

/**
 * One state edit (the encrypted export, so secrets stay sealed): an adopted create becomes
 * its resource (the op's inputs as inputs and outputs; a dynamic resource's keep its
 * `__provider`), a dropped one goes; then a targeted refresh reads each adopted object and
 * drops each deleted one.
 */
function applyOutcomes(opts: Options, outcomes: Outcome[]): void {
  const state = JSON.parse(pulumi(opts, ["stack", "export"])) as Deployment;
  const byUrn = new Map(outcomes.map((o) => [o.urn, o]));
  const resources = state.deployment.resources ?? [];
  const kept: PendingOp[] = [];
  for (const op of state.deployment.pending_operations ?? []) {
    const o = byUrn.get(op.resource.urn);
    const live = resources.find((r) => r.urn === op.resource.urn && r.delete !== true);
    if (o?.action === "adopt" && op.type === "creating" && o.found && live) {
      // A setting taken over again by a later run (its Check found the killed run's write): that entry is the
      // resource, and what it puts back on delete is what the interrupted take-over found.
      live.outputs = { ...(live.outputs as Props), [o.found.field]: o.found.value };
    } else if (o?.action === "adopt" && op.type === "creating") {
      const { inputs = {} } = op.resource;
      // The URN already has a live entry: a replacement's create was interrupted, or a later
      // `up` made the resource again. Either way the adopted object becomes the resource and
      // the entry is kept for deletion, as the engine keeps a replaced resource: the next
      // `up` deletes it, and nothing is left that no state holds.
      for (const r of resources) if (r.urn === op.resource.urn && r.delete !== true) r.delete = true;
      const found = o.found && { [o.found.field]: o.found.value };
      const where = o.where && { [WORKSPACE_KEY]: o.where };
      resources.push({ ...op.resource, provider: currentProvider(resources, op.resource), id: o.id, inputs, outputs: { ...inputs, ...found, ...where } });
    } else if (o?.action === "drop" || (o?.action === "refresh" && op.type === "deleting")) {
      // dropped: a create that made nothing, an interrupted delete whose object is gone (the refresh below removes its resource)
    } else kept.push(op);
  }
  state.deployment.resources = resources;
  state.deployment.pending_operations = kept;
  pulumi(opts, ["stack", "import"], JSON.stringify(state));
  const targets = outcomes.filter((o) => o.action === "adopt" || o.action === "refresh").flatMap((o) => ["--target", o.urn]);
  if (targets.length > 0) pulumi(opts, ["refresh", "--yes", "--skip-preview", ...targets]);
}

/**
 * The provider reference the adopted entry takes: the pending create's, or, when a later run
 * made that provider again (a new id under the same URN), the one the stack has now.
 */
function currentProvider(resources: Array<{ urn: string; [k: string]: unknown }>, resource: PendingOp["resource"]): unknown {
  const ref = resource.provider;
  if (typeof ref !== "string") return ref;
  const at = ref.lastIndexOf("::");
  const providerUrn = ref.slice(0, at);
  const live = resources.find((r) => r.urn === providerUrn && r.delete !== true);
  if (!live) throw new Error(`${resource.urn}: the provider its pending create used (${providerUrn}) is no longer in the stack (a destroy ran since): run \`pulumi up\` (it makes the provider again), then \`pulumi-svc recover\` again.`);
  return `${providerUrn}::${String(live.id)}`;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  try {
    process.exitCode = await recover(opts);
  } catch (err) {
    process.stderr.write(`pulumi-svc recover: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

void main();
