/**
 * A crash-safe journal of creates in flight, so that the create after an interrupted
 * run (a killed `pulumi up`, a cancelled CI job) recognises the object the interrupted
 * create made instead of making a second one. Why a journal and not a marker on the
 * object: the spec offers no idempotency key on creates (only `POST /v1/events` takes
 * `Idempotency-Key`) and no free field to carry one; see provider/README.md.
 *
 * One file per plugin process, `<dir>/<pid>-<random>.jsonl`, lines appended (an
 * append is in the kernel's page cache before the POST goes out, so it survives the
 * process being killed; only a crash of the machine loses it):
 *   {"s":"<entry>","k":"<kind>","f":"<fingerprint>","i"?:"<identity>","t":<sent at, ms>}   a create was sent
 *   {"d":"<entry>","k":"<kind>","c":"<connection>","id":"<object id>","ca"?:"<created_at>","f":..,"t":..}   it was answered (or its object found)
 *   {"d":"<entry>"}                                                         it made nothing
 *   {"r":"<ref>","k":"<kind>","c"?:..,"id"?:..,"ca"?:..,"f"?:..,"t"?:..}    an earlier process's entry (or unsaved answer), settled here
 *   {"h":"<ref>"}                                                           an engine named that answer's object (or setting): a resource holds it
 *   {"p":"<entry>","k":"<kind>","c":"<connection>","id":"<setting id>","v":<value found>,"i"?:"<holder>","t":..}   a singleton taken over: the value found before its first write
 *   {"a":"<entry>","k":"<kind>","c":"<connection>","id":"<object id>","n":"<name>","t":..}   the resource named n in the program adopted that object
 *   {"closed":1}                                                            the engine closed this process: it saved every answer
 * The fingerprint is an HMAC of the kind and the create body under the API key
 * (SvcClient.fingerprint): no input, secret or key can be read back from it, and only
 * the same credentials recognise it. The identity (`i`, on `s`, `d` and `r` lines) is an
 * HMAC of what names the resource instead of every value it declares: the kind, its
 * stack, project and name (the SDK's `__resource` input: the dynamic provider's create
 * is told no URN) and its create-only values; so an unsaved answer is adopted by the
 * same resource after an edit of its updatable fields (reconcile.ts).
 *
 * An answered id is held by some resource, never another create's candidate, but only
 * on its connection (`c`: an HMAC of the address under the key, SvcClient.fingerprint)
 * and only that object (`ca`, its `created_at` as the service gave it): ids made of a
 * name (`workspace/<event type>`) recur in other workspaces, and in the same one
 * after a delete.
 *
 * An entry of a process that is gone, neither answered nor settled, is an interrupted
 * create: the object may exist. The next create with the same fingerprint takes it
 * and looks for that object (reconcile.ts).
 *
 * An answer is saved by the engine only after it reached it, and nothing tells the
 * provider when. An engine closes its plugin (SIGINT from the Pulumi CLI, SIGTERM from
 * the stand-in) only once every step is saved, so a process closed that way writes
 * `closed`, and its answers are held. The answers of a process that ended otherwise
 * (its `pulumi` killed) are unsaved until an engine names their object in a diff, read,
 * update or delete (`named`: a resource of a state holds it); meanwhile the next create
 * with the same fingerprint adopts one of them (`takeUnsaved`) instead of making the
 * object again.
 *
 * A singleton's take-over (a workspace setting, a policy, quota limits) writes over a
 * value that delete must put back, and the state learns that value only from the
 * create's answer. So the value found is journaled before the first write (`p`); an
 * unsaved one (same rule as answers) is what the next take-over of that setting by the
 * same resource (`i`, its identity: claims.ts `holderIdentity`) puts in the state as the
 * value found before, not what the killed run wrote (`takeUnsavedPrior`); another
 * resource's take-over (another stack's, on the same machine) never takes it, nor does
 * its naming settle it. These values are settings, never secrets.
 *
 * An adoption (`a`) may leave another state entry of the stack on the same object: a
 * rename adopting its object, run as `pulumi up --target <new name>`, keeps the old name
 * in the state until a run deletes it, and nothing of that run but this line tells the
 * delete of the old name (its outputs are all it is given: in a `destroy --target`, no
 * Diff comes first) that the object is the new name's now. A delete by any other name
 * than the latest adopter's leaves the object (`adopterOf`); the record is settled when
 * the object is deleted, or when a run whose program keeps it drops the old name.
 * Counted only from processes their engine closed (everything they answered is saved).
 * Names are the program's, never secrets.
 *
 * Files of processes that are gone are deleted once every entry in them is settled
 * and no kept file needs the lines that settled them; entries older than MAX_AGE_MS
 * are forgotten. Directory: env SVC_JOURNAL_DIR (`off` turns the journal off), else
 * ~/.pulumi-svc/journal.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { onEngineClose, underEngine, whileEngineThere, watchEngine } from "./engine-link";
import { note } from "./errors";

/** An interrupted create of an earlier process: when it was sent, and how to settle it. */
export interface Interrupted {
  ref: string;
  sentAt: number;
}

/** An answer an earlier process gave while its engine was there, never known to be saved (no `closed`, never named since). */
export interface Unsaved extends HeldObject {
  ref: string;
  fingerprint: string;
  /** The identity of the create it answered; absent in lines of releases before it. */
  identity?: string;
}

/** An earlier process's adoption of an object (`a`): which resource of the program holds it now. */
export interface Adoption {
  ref: string;
  /** The adopter's name in the program. */
  name: string;
}

/** What a killed take-over found before its first write, not known to be saved. */
export interface UnsavedPrior {
  ref: string;
  value: unknown;
  /** The identity of the resource that took it over; absent in lines of releases before it. */
  identity?: string;
}

/** Entries older than this are forgotten: a week between an interrupted run and the next. */
const MAX_AGE_MS = 7 * 24 * 3600_000;
/** A gone process's file with every create settled is kept this long: its answered ids still tell held objects from candidates. */
const SETTLED_KEPT_MS = 10 * 60_000;

/** An object a create got as its answer (or adopted): on which connection, and which object of that id. */
export interface HeldObject {
  /** The connection (SvcClient.fingerprint of JOURNAL_SCOPE). */
  connection: string;
  id: string;
  /** Its `created_at` as the service gave it, when the kind has one. */
  createdAt?: string;
}

/** What SvcClient.fingerprint hashes to name a connection in the journal. */
export const JOURNAL_SCOPE = "create journal: connection";

interface Loaded {
  /** Interrupted entries by `kind \0 fingerprint`, oldest first. */
  interrupted: Map<string, Interrupted[]>;
  /** Ids answered to earlier processes' creates, by `kind \0 connection`, with their `created_at`: objects some resource of a stack holds. */
  answered: Map<string, Map<string, string | undefined>>;
  /** Files of processes that are gone, with their entries' refs. */
  deadFiles: Map<string, Set<string>>;
  /** Refs settled (in any file, this process's included). */
  settled: Set<string>;
  /** Unsaved answers by kind, oldest first. */
  unsaved: Map<string, Unsaved[]>;
  /** Unsaved values found by singleton take-overs, by `kind \0 connection \0 id`, oldest first (each with the resource's identity). */
  priors: Map<string, UnsavedPrior[]>;
  /** Adoptions of objects by processes their engine closed, by `kind \0 connection \0 id`, oldest first. */
  adoptions: Map<string, Adoption[]>;
  /** Refs each gone process's file settled (`r` and `h` lines): kept while a file holding one of them is. */
  settles: Map<string, Set<string>>;
  /** Every file read (of live and gone processes). */
  files: Set<string>;
}

export class CreateJournal {
  private readonly file: string;
  private loaded?: Loaded;
  private disabled = false;
  private dirMade = false;
  /** Entries of this process not yet answered or settled, with their kind, fingerprint and identity. */
  private readonly open = new Map<string, { kind: string; fingerprint: string; identity?: string }>();
  /** Refs of this process's adoptions not settled yet, by `kind \0 connection \0 id`. */
  private readonly ownAdoptions = new Map<string, string[]>();
  /** This process wrote an answer or settled another's line: its file must outlive it. */
  private holdsAnswers = false;

  constructor(private readonly dir: string) {
    this.file = join(dir, `${process.pid}-${randomUUID().slice(0, 8)}.jsonl`);
  }

  /** Take one interrupted create of an earlier process with this fingerprint, if any (each is taken once). */
  take(kind: string, fingerprint: string): Interrupted | undefined {
    const list = this.load()?.interrupted.get(`${kind}\u0000${fingerprint}`);
    return list?.shift();
  }

  /** Interrupted creates with this fingerprint not taken yet: resources of this run that will look for their objects too. */
  untaken(kind: string, fingerprint: string): number {
    return this.load()?.interrupted.get(`${kind}\u0000${fingerprint}`)?.length ?? 0;
  }

  /** Objects that creates of earlier processes got as their answer on this connection (id to `created_at`): held by some resource, never another's candidate. */
  answeredEarlier(kind: string, connection: string): ReadonlyMap<string, string | undefined> {
    return this.load()?.answered.get(`${kind}\u0000${connection}`) ?? new Map();
  }

  /**
   * Take the unsaved answers of earlier processes to this create on this connection (each
   * is taken once): with an identity, every answer to a create of the same resource
   * (`fits`); else, and for answers journaled without one, the oldest with the same
   * fingerprint (look-alikes share them one each).
   */
  takeUnsaved(kind: string, fingerprint: string, connection: string, identity?: string): Unsaved[] {
    const list = this.load()?.unsaved.get(kind) ?? [];
    const taken: Unsaved[] = [];
    for (const u of [...list]) {
      if (u.connection !== connection || !fits(u, fingerprint, identity)) continue;
      list.splice(list.indexOf(u), 1);
      taken.push(u);
      if (identity === undefined || u.identity === undefined) break;
    }
    return taken;
  }

  /** Unsaved answers to this create not taken yet. */
  unsavedCount(kind: string, fingerprint: string, identity?: string): number {
    return (this.load()?.unsaved.get(kind) ?? []).filter((u) => fits(u, fingerprint, identity)).length;
  }

  /**
   * The engine named this object for a resource (diff, read, update, delete): a state
   * holds it, so an unsaved answer with it was saved after all and is no create's to adopt
   * (and a setting's unsaved value found before is in that state already, when it was
   * that resource's: `identity`, unknown to a read or delete).
   */
  named(kind: string, connection: string, id: string, identity?: string): void {
    const loaded = this.load();
    if (!loaded) return;
    const refs: string[] = [];
    const list = loaded.unsaved.get(kind) ?? [];
    for (const u of list.filter((u) => u.connection === connection && u.id === id)) {
      list.splice(list.indexOf(u), 1);
      refs.push(u.ref);
    }
    const priors = loaded.priors.get(objectKey(kind, connection, id)) ?? [];
    for (const p of priors.filter((p) => priorFits(p, identity))) {
      priors.splice(priors.indexOf(p), 1);
      refs.push(p.ref);
    }
    for (const ref of refs) {
      loaded.settled.add(ref);
      this.holdsAnswers = true;
      this.append({ h: ref });
    }
  }

  /**
   * The value an earlier take-over of this setting by this resource (`identity`) found
   * before it wrote, when the engine may not have saved it (its process was killed, and
   * no engine has named the setting for that resource since): the oldest, taken once.
   * Settle it with `settleEarlier` once this take-over has journaled its own (`tookOver`).
   */
  takeUnsavedPrior(kind: string, connection: string, id: string, identity?: string): UnsavedPrior | undefined {
    const list = this.load()?.priors.get(objectKey(kind, connection, id)) ?? [];
    const prior = list.find((p) => priorFits(p, identity));
    if (prior) list.splice(list.indexOf(prior), 1);
    return prior;
  }

  /** Before a singleton's first write: the value it found, which delete puts back, and which resource took it over. */
  tookOver(kind: string, connection: string, id: string, value: unknown, identity?: string): void {
    this.holdsAnswers = true;
    this.append({ p: randomUUID().slice(0, 13), k: kind, c: connection, id, v: value, ...identityLine(identity), t: Date.now() });
  }

  /** A resource of the program (`name`) adopted this object: another state entry may still hold it. */
  adopted(kind: string, connection: string, id: string, name: string): void {
    const entry = randomUUID().slice(0, 13);
    const key = objectKey(kind, connection, id);
    this.ownAdoptions.set(key, [...(this.ownAdoptions.get(key) ?? []), `${basename(this.file)}#adoption:${entry}`]);
    this.holdsAnswers = true;
    this.append({ a: entry, k: kind, c: connection, id, n: name, t: Date.now() });
  }

  /** The resource that adopted this object last in an earlier run, while its record is open: the object's holder. */
  adopterOf(kind: string, connection: string, id: string): Adoption | undefined {
    return this.load()?.adoptions.get(objectKey(kind, connection, id))?.at(-1);
  }

  /** The object is deleted, or no other state entry holds it any more: its adoptions (this process's too) are settled. */
  settleAdoptions(kind: string, connection: string, id: string): void {
    const loaded = this.load();
    if (!loaded) return;
    const key = objectKey(kind, connection, id);
    const refs = [...(loaded.adoptions.get(key)?.splice(0).map((a) => a.ref) ?? []), ...(this.ownAdoptions.get(key)?.splice(0) ?? [])];
    for (const ref of refs) {
      loaded.settled.add(ref);
      this.holdsAnswers = true;
      this.append({ r: ref });
    }
  }

  /** Before a create is sent: its entry. */
  sent(kind: string, fingerprint: string, at: number, identity?: string): string {
    const entry = randomUUID().slice(0, 13);
    this.open.set(entry, { kind, fingerprint, ...(identity === undefined ? {} : { identity }) });
    this.append({ s: entry, k: kind, f: fingerprint, ...identityLine(identity), t: at });
    return entry;
  }

  /**
   * The create was answered, or its object found (`held`), or it made nothing (no object).
   * An object is recorded only while the engine is there to save it (engine-link.ts): else
   * this process ends with the entry open, for the next run to adopt the object.
   */
  async settle(entry: string, held?: HeldObject): Promise<void> {
    const open = this.open.get(entry);
    if (open === undefined) return;
    if (held !== undefined) await whileEngineThere();
    this.open.delete(entry);
    if (held !== undefined) this.holdsAnswers = true;
    this.append(held === undefined ? { d: entry } : { d: entry, k: open.kind, f: open.fingerprint, ...identityLine(open.identity), ...heldLine(held) });
  }

  /**
   * An earlier process's interrupted create (or unsaved answer) was settled here: its
   * object adopted (`held`, an answer of this process as `settle` records it), or it
   * made none, or its object is gone.
   */
  async settleEarlier(ref: string, kind: string, fingerprint: string, held?: HeldObject, identity?: string): Promise<void> {
    if (held !== undefined) await whileEngineThere();
    this.loaded?.settled.add(ref);
    this.holdsAnswers = true;
    this.append(held === undefined ? { r: ref, k: kind } : { r: ref, k: kind, f: fingerprint, ...identityLine(identity), ...heldLine(held) });
  }

  /** The engine is closing this process: every answer it got is saved. */
  closed(): void {
    if (this.holdsAnswers || this.open.size > 0) this.append({ closed: 1 });
  }

  /**
   * At exit (the engine gone, or a process with no engine ending): this process's file
   * when it holds nothing the next run needs (a plugin's answers the engine may not have
   * saved are needed; a process with no engine handed its answers to its caller), and
   * the files of gone processes now settled.
   */
  cleanUp(): void {
    if (this.disabled) return;
    if (this.open.size === 0 && !(this.holdsAnswers && underEngine())) rmSync(this.file, { force: true });
    if (this.loaded) for (const file of deletable(this.loaded, () => true)) rmSync(join(this.dir, file), { force: true });
  }

  private append(line: object): void {
    if (this.disabled) return;
    try {
      if (!this.dirMade) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.dirMade = true;
      appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    } catch (err) {
      this.disabled = true;
      note(`The create journal cannot be written in ${this.dir} (${(err as NodeJS.ErrnoException).code ?? "error"}): a create interrupted by a killed run will not be recognised by the next one. Set SVC_JOURNAL_DIR to a writable directory.`);
    }
  }

  private load(): Loaded | undefined {
    if (this.disabled) return undefined;
    if (this.loaded) return this.loaded;
    const loaded: Loaded = { interrupted: new Map(), answered: new Map(), deadFiles: new Map(), settled: new Set(), unsaved: new Map(), priors: new Map(), adoptions: new Map(), settles: new Map(), files: new Set() };
    this.loaded = loaded;
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(".jsonl"));
    } catch {
      return loaded; // no journal yet
    }
    const own = this.file.slice(this.dir.length + 1);
    const sentLines: { ref: string; kind: string; fp: string; at: number }[] = [];
    /** Answers of gone processes that did not close: unsaved unless settled since. */
    const unclosed: (Unsaved & { kind: string; at: number })[] = [];
    /** Values found by take-overs of gone processes that did not close: unsaved unless settled since. */
    const unclosedPriors: (UnsavedPrior & { key: string; at: number })[] = [];
    /** Adoptions by processes their engine closed: open unless settled since. */
    const closedAdoptions: (Adoption & { key: string; at: number })[] = [];
    const answeredRefs = new Set<string>();
    for (const name of names) {
      if (name === own) continue;
      const dead = !processAlive(Number(name.split("-")[0]));
      let text: string;
      try {
        text = readFileSync(join(this.dir, name), "utf8");
      } catch {
        continue;
      }
      loaded.files.add(name);
      const refs = new Set<string>();
      const settles = new Set<string>();
      if (dead) {
        loaded.deadFiles.set(name, refs);
        loaded.settles.set(name, settles);
      }
      const answers: typeof unclosed = [];
      const priors: typeof unclosedPriors = [];
      const adoptions: typeof closedAdoptions = [];
      let closed = false;
      for (const raw of text.split("\n")) {
        const line = parseLine(raw);
        if (!line) continue; // a line cut short by a kill
        if (typeof line.s === "string" && typeof line.k === "string" && typeof line.f === "string" && typeof line.t === "number") {
          const ref = `${name}#${line.s}`;
          refs.add(ref);
          if (dead) sentLines.push({ ref, kind: line.k, fp: line.f, at: line.t });
          else answeredRefs.add(ref); // a live process's create is its own business
        } else if (typeof line.d === "string") {
          answeredRefs.add(`${name}#${line.d}`);
          noteAnswered(loaded, line);
          // The answer's own ref: its entry's ref is settled by the answer itself.
          answers.push(...unsavedCandidate(`${name}#answer:${line.d}`, line));
        } else if (typeof line.r === "string") {
          loaded.settled.add(line.r);
          settles.add(line.r);
          noteAnswered(loaded, line);
          answers.push(...unsavedCandidate(`${name}#${line.r}`, line));
        } else if (typeof line.h === "string") {
          loaded.settled.add(line.h);
          settles.add(line.h);
        } else if (typeof line.p === "string" && typeof line.k === "string" && typeof line.c === "string" && typeof line.id === "string" && typeof line.t === "number" && "v" in line) {
          priors.push({ ref: `${name}#prior:${line.p}`, key: objectKey(line.k, line.c, line.id), value: line.v, ...(typeof line.i === "string" ? { identity: line.i } : {}), at: line.t });
        } else if (typeof line.a === "string" && typeof line.k === "string" && typeof line.c === "string" && typeof line.id === "string" && typeof line.n === "string" && typeof line.t === "number") {
          adoptions.push({ ref: `${name}#adoption:${line.a}`, key: objectKey(line.k, line.c, line.id), name: line.n, at: line.t });
        } else if (line.closed === 1) closed = true;
      }
      if (dead && !closed) {
        unclosed.push(...answers);
        unclosedPriors.push(...priors);
        for (const a of [...answers, ...priors]) refs.add(a.ref);
      }
      if (closed) {
        closedAdoptions.push(...adoptions);
        for (const a of adoptions) refs.add(a.ref);
      }
    }
    const now = Date.now();
    for (const e of sentLines) {
      if (answeredRefs.has(e.ref) || loaded.settled.has(e.ref)) {
        loaded.settled.add(e.ref);
        continue;
      }
      if (now - e.at > MAX_AGE_MS) {
        loaded.settled.add(e.ref);
        continue;
      }
      const key = `${e.kind}\u0000${e.fp}`;
      const list = loaded.interrupted.get(key) ?? [];
      list.push({ ref: e.ref, sentAt: e.at });
      loaded.interrupted.set(key, list);
    }
    groupOpen(loaded, unclosed, now, loaded.unsaved, (a) => a.kind, ({ kind: _kind, at: _at, ...unsaved }) => unsaved);
    groupOpen(loaded, unclosedPriors, now, loaded.priors, (p) => p.key, ({ key: _key, at: _at, ...prior }) => prior);
    groupOpen(loaded, closedAdoptions, now, loaded.adoptions, (a) => a.key, (a) => ({ ref: a.ref, name: a.name }));
    for (const list of loaded.interrupted.values()) list.sort((a, b) => a.sentAt - b.sentAt);
    // Gone processes whose creates were all settled, a while ago: nothing to look for (a plugin killed by its engine never cleans up).
    for (const file of deletable(loaded, (f) => modifiedBefore(join(this.dir, f), now - SETTLED_KEPT_MS))) {
      rmSync(join(this.dir, file), { force: true });
      loaded.deadFiles.delete(file);
      loaded.settles.delete(file);
      loaded.files.delete(file);
    }
    return loaded;
  }

}

/**
 * Files of gone processes that can go: every entry and unsaved answer in them settled,
 * `old` enough, and none settles a ref of a file that stays (or that ref would be
 * open again).
 */
function deletable(loaded: Loaded, old: (file: string) => boolean): string[] {
  const going = new Set([...loaded.deadFiles].filter(([file, refs]) => [...refs].every((r) => loaded.settled.has(r)) && old(file)).map(([file]) => file));
  for (let changed = true; changed; ) {
    changed = false;
    for (const file of going) {
      const stays = (f: string) => loaded.files.has(f) && !going.has(f);
      if ([...(loaded.settles.get(file) ?? [])].some((ref) => stays(ref.split("#")[0]!))) {
        going.delete(file);
        changed = true;
      }
    }
  }
  return [...going];
}

/** Entries still open (neither settled nor older than MAX_AGE_MS; expired ones are settled) into `into` by key, oldest first. */
function groupOpen<E extends { ref: string; at: number }, T>(loaded: Loaded, entries: E[], now: number, into: Map<string, T[]>, key: (e: E) => string, value: (e: E) => T): void {
  for (const e of entries.sort((x, y) => x.at - y.at)) {
    if (loaded.settled.has(e.ref)) continue;
    if (now - e.at > MAX_AGE_MS) {
      loaded.settled.add(e.ref);
      continue;
    }
    const list = into.get(key(e)) ?? [];
    list.push(value(e));
    into.set(key(e), list);
  }
}

/** An answer line (`d` or `r` with an object) as an unsaved answer, when its process turns out not to have closed. */
function unsavedCandidate(ref: string, line: Record<string, unknown>): (Unsaved & { kind: string; at: number })[] {
  if (typeof line.k !== "string" || typeof line.c !== "string" || typeof line.id !== "string" || typeof line.f !== "string" || typeof line.t !== "number") return [];
  return [{ ref, kind: line.k, fingerprint: line.f, at: line.t, connection: line.c, id: line.id, ...(typeof line.ca === "string" ? { createdAt: line.ca } : {}), ...(typeof line.i === "string" ? { identity: line.i } : {}) }];
}

/** Is an unsaved answer one to this create? By identity when both have one (the same resource, whatever its updatable values), else by fingerprint (the same body). */
function fits(u: Unsaved, fingerprint: string, identity: string | undefined): boolean {
  return identity !== undefined && u.identity !== undefined ? u.identity === identity : u.fingerprint === fingerprint;
}

/**
 * Is an unsaved value found before this resource's (`identity`)? The same identity, or a
 * line of a release before identities (by the setting alone, as then). A caller that
 * cannot say (a read or delete, told outputs only) matches only such lines.
 */
const priorFits = (p: UnsavedPrior, identity: string | undefined) => p.identity === undefined || p.identity === identity;

const identityLine = (identity: string | undefined) => (identity === undefined ? {} : { i: identity });

/** An object (or setting) of a kind on one connection. */
const objectKey = (kind: string, connection: string, id: string) => `${kind}\u0000${connection}\u0000${id}`;

const heldLine = (held: HeldObject) => ({ c: held.connection, id: held.id, ...(held.createdAt === undefined ? {} : { ca: held.createdAt }), t: Date.now() });

/** An object some earlier create got (or adopted), from its line: some resource holds it. */
function noteAnswered(loaded: Loaded, line: Record<string, unknown>): void {
  if (typeof line.k !== "string" || typeof line.c !== "string" || typeof line.id !== "string") return;
  const key = `${line.k}\u0000${line.c}`;
  let ids = loaded.answered.get(key);
  if (!ids) loaded.answered.set(key, (ids = new Map()));
  ids.set(line.id, typeof line.ca === "string" ? line.ca : undefined);
}

function parseLine(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === "") return undefined;
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function modifiedBefore(path: string, at: number): boolean {
  try {
    return statSync(path).mtimeMs < at;
  } catch {
    return false;
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false; // an earlier process with this pid: this one has its own file
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

let journal: CreateJournal | undefined | null;

/** This process's journal, or undefined when turned off (SVC_JOURNAL_DIR=off). */
export function createJournal(): CreateJournal | undefined {
  if (journal !== undefined) return journal ?? undefined;
  const dir = process.env.SVC_JOURNAL_DIR?.trim();
  if (dir === "off") return (journal = null) ?? undefined;
  journal = new CreateJournal(dir || join(homedir(), ".pulumi-svc", "journal"));
  watchEngine();
  const j = journal;
  onEngineClose(() => j.closed());
  process.once("exit", () => j.cleanUp());
  return journal;
}
