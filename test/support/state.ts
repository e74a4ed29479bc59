// The stack's state file, shaped like the file backend's checkpoint
// ({version: 3, checkpoint: {stack, latest: deployment}}), so that a person who
// knows `pulumi stack export` can read it.
//
// In memory, secret values are {SIG_KEY: SECRET_SIG, value} (their RPC form). On
// disk each one becomes {SIG_KEY: SECRET_SIG, ciphertext}, like the CLI writes.

import * as fs from "node:fs";
import * as path from "node:path";
import { Crypter, type SecretsProviderState } from "./crypter";
import { SIG_KEY, SECRET_SIG, isObject, isSecret, type Json, type PropertyMap } from "./values";

export interface ResourceState {
  urn: string;
  custom: boolean;
  /** True for the old copy of a replaced resource that still has to be deleted. */
  delete?: boolean;
  id?: string;
  type: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  parent?: string;
  dependencies: string[];
  /** Input name → the URNs its value came from: what a delete-before-replace cascades over. */
  propertyDependencies?: Record<string, string[]>;
  provider?: string;
  protect?: boolean;
  /** Removed from state without calling the provider's delete. */
  retainOnDelete?: boolean;
  /** Read with `Resource.get`: not managed, never deleted by the engine. */
  external?: boolean;
  additionalSecretOutputs?: string[];
  /** The URN of the resource this one is deleted with: its own delete is then skipped. */
  deletedWith?: string;
  /** Reasons from a partially failed create/update: forces an update next run. */
  initErrors?: string[];
}

export type PendingOperationType = "creating" | "updating" | "deleting" | "reading";

export interface PendingOperation {
  resource: ResourceState;
  type: PendingOperationType;
}

export interface Deployment {
  manifest: { time: string; magic: string; version: string };
  secrets_providers?: SecretsProviderState;
  resources: ResourceState[];
  pending_operations?: PendingOperation[];
}

export interface Checkpoint {
  version: 3;
  checkpoint: { stack: string; latest: Deployment };
}

/** Where a stack's state is kept when no state file is given: <program dir>/.pulumi-state/<stack>.json. */
export function defaultStateFile(programDir: string, stack: string, stateFile?: string): string {
  return path.resolve(stateFile ?? path.join(programDir, ".pulumi-state", `${stack}.json`));
}

export class StateFile {
  private crypter: Crypter | undefined;
  private secretsProvider: SecretsProviderState | undefined;

  constructor(
    readonly file: string,
    private readonly passphrase: string,
  ) {}

  /** Loads the deployment with secrets decrypted; an empty one when the file does not exist. */
  load(): Deployment {
    if (!fs.existsSync(this.file)) {
      return { manifest: manifest(), resources: [], pending_operations: [] };
    }
    const cp = JSON.parse(fs.readFileSync(this.file, "utf8")) as Checkpoint;
    const d = cp.checkpoint.latest;
    if (d.secrets_providers) {
      this.secretsProvider = d.secrets_providers;
      this.crypter = Crypter.open(this.passphrase, d.secrets_providers);
    }
    const decrypt = (v: Json): Json => this.mapSecrets(v, "decrypt");
    return {
      ...d,
      resources: d.resources.map((r) => this.mapResource(r, decrypt)),
      pending_operations: (d.pending_operations ?? []).map((op) => ({ ...op, resource: this.mapResource(op.resource, decrypt) })),
    };
  }

  /** Writes atomically (temp file + rename) so a killed run never leaves half a file. */
  save(stack: string, d: Deployment): void {
    if (!this.crypter || !this.secretsProvider) {
      const { crypter, provider } = Crypter.create(this.passphrase);
      this.crypter = crypter;
      this.secretsProvider = provider;
    }
    const encrypt = (v: Json): Json => this.mapSecrets(v, "encrypt");
    const cp: Checkpoint = {
      version: 3,
      checkpoint: {
        stack,
        latest: {
          manifest: manifest(),
          secrets_providers: this.secretsProvider,
          resources: d.resources.map((r) => this.mapResource(r, encrypt)),
          pending_operations: (d.pending_operations ?? []).map((op) => ({ ...op, resource: this.mapResource(op.resource, encrypt) })),
        },
      },
    };
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(cp, null, 2) + "\n", { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  private mapResource(r: ResourceState, f: (v: Json) => Json): ResourceState {
    return { ...r, inputs: f(r.inputs) as PropertyMap, outputs: f(r.outputs) as PropertyMap };
  }

  private mapSecrets(v: Json, dir: "encrypt" | "decrypt"): Json {
    const crypter = this.crypter;
    if (dir === "encrypt" && isSecret(v)) {
      return { [SIG_KEY]: SECRET_SIG, ciphertext: crypter!.encrypt(JSON.stringify(v.value)) };
    }
    if (dir === "decrypt" && isObject(v) && v[SIG_KEY] === SECRET_SIG && typeof v["ciphertext"] === "string") {
      if (!crypter) throw new Error("state holds secrets but no secrets provider");
      return { [SIG_KEY]: SECRET_SIG, value: JSON.parse(crypter.decrypt(v["ciphertext"])) as Json };
    }
    if (Array.isArray(v)) return v.map((x) => this.mapSecrets(x, dir));
    if (isObject(v)) {
      const out: { [key: string]: Json } = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.mapSecrets(x, dir);
      return out;
    }
    return v;
  }
}

function manifest(): Deployment["manifest"] {
  return { time: new Date().toISOString(), magic: "", version: "pulumi-svc engine stand-in" };
}

/**
 * Orders resources so that every parent, dependency and provider comes before the
 * resources that reference it (the invariant of a real checkpoint), keeping the
 * given order otherwise.
 */
export function sortResources(resources: ResourceState[]): ResourceState[] {
  const out: ResourceState[] = [];
  const placed = new Set<ResourceState>();
  const byUrn = new Map<string, ResourceState[]>();
  for (const r of resources) byUrn.set(r.urn, [...(byUrn.get(r.urn) ?? []), r]);
  const visiting = new Set<ResourceState>();
  const visit = (r: ResourceState): void => {
    if (placed.has(r) || visiting.has(r)) return;
    visiting.add(r);
    const refs = [r.parent, providerUrn(r.provider), ...r.dependencies].filter((u): u is string => !!u && u !== r.urn);
    for (const u of refs) for (const d of byUrn.get(u) ?? []) visit(d);
    visiting.delete(r);
    placed.add(r);
    out.push(r);
  };
  resources.forEach(visit);
  return out;
}

export function providerUrn(ref: string | undefined): string | undefined {
  if (!ref) return undefined;
  const i = ref.lastIndexOf("::");
  return i < 0 ? ref : ref.slice(0, i);
}
