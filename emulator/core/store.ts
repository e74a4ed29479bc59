/**
 * The emulator's whole state: one JSON-serialisable object, so that `--state-file`
 * persistence is a plain write and `reset` is a plain re-initialisation.
 *
 * Handlers read and mutate it synchronously: Node runs one handler at a time, so a
 * check-then-insert with no `await` in between can never race (200 parallel creates
 * cannot pass a ceiling or duplicate a name).
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { PlanName } from "./plans";
import { parseNullProto } from "./dict";

export type Product = "webhooks" | "inboxes" | "infra";

export interface Workspace {
  id: string;
  name: string;
  plan: PlanName;
  frozen: boolean;
  suspended: boolean;
  default_project_id: string | null;
  created_at: string;
}

export interface Project {
  id: string;
  workspace_id: string;
  name: string;
  created_at: string;
}

export interface KeyRecord {
  key: string;
  product: Product;
  /**
   * Webhooks/Inboxes: one of admin, read, publish. Infrastructure: a list of
   * scopes such as `vms:read`, `iam:write`.
   */
  scopes: string[];
  /** Null models a credential not tied to a workspace (Inboxes `no_workspace`). */
  workspace_id: string | null;
  /** Webhooks/Inboxes: a project-confined credential. Infrastructure: the key's project. */
  project_id: string | null;
  revoked: boolean;
  created_at: string;
}

/** A browser sign-in session (spec document 1: accepted; writes need X-CSRF). */
export interface SessionRecord {
  token: string;
  workspace_id: string;
  expired: boolean;
  revoked: boolean;
}

export interface CoreState {
  workspaces: Record<string, Workspace>;
  projects: Record<string, Project>;
  keys: Record<string, KeyRecord>;
  sessions: Record<string, SessionRecord>;
  /** Each product module keeps its own state here, under its name. */
  products: Record<string, unknown>;
}

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Random characters of `[a-z2-7]` (the infrastructure key alphabet; also used for ids). */
export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}

/** A new resource id such as `ep_3kq7...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase32(20)}`;
}

/** A JWT-shaped Webhooks/Inboxes key (starts with `eyJ`); opaque to clients. */
export function newAppKey(product: Product, scope: string): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ prd: product, scp: scope, jti: randomBase32(16) })}.${randomBytes(24).toString("base64url")}`;
}

/** An infrastructure key: `svc_test_` plus 40 characters of `[a-z2-7]`. */
export function newInfraKey(): string {
  return `svc_test_${randomBase32(40)}`;
}

/** How long a change waits before the state file is rewritten (changes meanwhile share the write). */
export const DEFAULT_STATE_WRITE_DELAY_MS = 200;

/**
 * Holds the state and persists it, write-behind: a change marks the state dirty and
 * the file is rewritten at most once per `writeDelayMs`, however many changes came in
 * between (a busy emulator with 1,000 objects would otherwise serialise them all on
 * every request). Each write goes to a temp file renamed over the old one, so a crash
 * never leaves a half-written file; one write at a time, so an older one never lands
 * after a newer one. `flush()` (on close and on SIGINT/SIGTERM in the CLI) writes what
 * is pending, so a clean stop loses nothing.
 */
/** Where a write puts the state before renaming it over the state file. */
const tempFileOf = (stateFile: string) => `${stateFile}.${process.pid}.tmp`;

export class Store {
  state: CoreState;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly stateFile: string | undefined,
    private readonly initial: () => CoreState,
    private readonly writeDelayMs = DEFAULT_STATE_WRITE_DELAY_MS,
  ) {
    this.state = stateFile && existsSync(stateFile) ? (parseNullProto(readFileSync(stateFile, "utf8")) as CoreState) : initial();
    // A file that could never be written fails the start, not the first write behind. The
    // check creates the very temporary file each write creates: a permission check alone is
    // fooled by a "folder" that is a regular file, or by /proc (writable to root, no file
    // can be made in it).
    if (stateFile) {
      const probe = tempFileOf(stateFile);
      try {
        writeFileSync(probe, "");
        unlinkSync(probe);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const why = code === "ENOENT" ? "does not exist" : code === "ENOTDIR" ? "is not a folder" : "is not writable";
        throw new Error(`cannot write the state file ${stateFile}: its folder ${why} (${code ?? (e as Error).message})`);
      }
    }
  }

  /** Product state, created by `init` on first use (and after reset). */
  product<T>(name: string, init: () => T): T {
    if (!(name in this.state.products)) this.state.products[name] = init();
    return this.state.products[name] as T;
  }

  reset(): void {
    this.state = this.initial();
    this.changed();
  }

  /** Call after a mutation; the file is rewritten within `writeDelayMs`. */
  changed(): void {
    if (!this.stateFile) return;
    this.dirty = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => void this.writeBehind(), this.writeDelayMs);
    this.timer.unref();
  }

  /** Write what is pending now (waits for a write in flight first). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing?.catch(() => undefined); // its failure leaves the state dirty: written again below
    if (this.dirty) await this.writeBehind();
    if (this.dirty) throw new Error(`the state file ${this.stateFile} could not be written; the last changes are not in it`);
  }

  private async writeBehind(): Promise<void> {
    this.timer = undefined;
    if (!this.stateFile || !this.dirty) return;
    this.dirty = false;
    const file = this.stateFile;
    const text = JSON.stringify(this.state);
    this.writing = (async () => {
      const tmp = tempFileOf(file);
      await writeFile(tmp, text);
      await rename(tmp, file);
    })();
    let failed = false;
    try {
      await this.writing;
    } catch (e) {
      // The folder went away or filled up after the start: say so and keep serving. The
      // state is written again with the next change, and on flush (which then fails the stop).
      failed = true;
      this.dirty = true;
      process.stderr.write(`emulator: could not write the state file ${file}: ${(e as Error).message}\n`);
    } finally {
      this.writing = undefined;
      // Changes made while writing get their own write.
      if (this.dirty && !failed) this.changed();
    }
  }
}
