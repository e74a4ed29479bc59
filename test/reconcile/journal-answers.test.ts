/**
 * The create journal's rule for answers (provider/engine/create-journal.ts), on files
 * written as gone plugin processes leave them: an answer of a process the engine closed
 * is held; one of a process that ended otherwise is unsaved, for the next create with
 * the same fingerprint to adopt, until an engine names its object; the line that
 * settled an answer is kept as long as the answer's file is; an adoption names the
 * object's holder until it is settled.
 */
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CreateJournal } from "../../provider/engine/create-journal";

/** A pid no process has (the journal takes its file's process for gone). */
const GONE = 4_194_001;
const KIND = "webhooks:Endpoint";
const CONNECTION = "conn";
const FP = "fingerprint";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, lines: object[], minutesAgo = 0): string {
  writeFileSync(join(dir, name), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  const at = new Date(Date.now() - minutesAgo * 60_000);
  utimesSync(join(dir, name), at, at);
  return name;
}

const answered = (entry: string, id: string) => [
  { s: entry, k: KIND, f: FP, t: Date.now() - 60_000 },
  { d: entry, k: KIND, f: FP, c: CONNECTION, id, ca: "2026-11-25T00:00:00.000Z", t: Date.now() - 59_000 },
];

describe("the create journal's answers", () => {
  it("an answer of a process the engine closed is held: no create adopts it", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    file(`${GONE}-a.jsonl`, [...answered("e1", "ep_1"), { closed: 1 }]);
    expect(new CreateJournal(dir).takeUnsaved(KIND, FP, CONNECTION)).toEqual([]);
  });

  it("an answer of a process that ended otherwise is unsaved: taken once, by the same fingerprint on its connection", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    file(`${GONE}-a.jsonl`, answered("e1", "ep_1"));
    const journal = new CreateJournal(dir);
    expect(journal.takeUnsaved(KIND, "another body", CONNECTION)).toEqual([]);
    expect(journal.takeUnsaved(KIND, FP, "another connection")).toEqual([]);
    expect(journal.unsavedCount(KIND, FP)).toBe(1);
    expect(journal.takeUnsaved(KIND, FP, CONNECTION)).toMatchObject([{ id: "ep_1", connection: CONNECTION, createdAt: "2026-11-25T00:00:00.000Z" }]);
    expect(journal.takeUnsaved(KIND, FP, CONNECTION)).toEqual([]);
  });

  it("an answer journaled with an identity is taken by a create of the same resource whatever its body, never by a look-alike of another", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const [sent, done] = answered("e1", "ep_1");
    const [sent2, done2] = answered("e2", "ep_2");
    file(`${GONE}-a.jsonl`, [{ ...sent, i: "resource A" }, { ...done, i: "resource A" }, { ...sent2, i: "resource A" }, { ...done2, i: "resource A" }]);
    const journal = new CreateJournal(dir);
    expect(journal.unsavedCount(KIND, FP, "resource B")).toBe(0);
    expect(journal.takeUnsaved(KIND, FP, CONNECTION, "resource B")).toEqual([]);
    expect(journal.unsavedCount(KIND, "an edited body", "resource A")).toBe(2);
    // Both, for the create to judge (two still there: it fails naming them).
    expect(journal.takeUnsaved(KIND, "an edited body", CONNECTION, "resource A").map((u) => u.id)).toEqual(["ep_1", "ep_2"]);
  });

  it("an engine naming the object settles it, for every later process", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    file(`${GONE}-a.jsonl`, answered("e1", "ep_1"));
    new CreateJournal(dir).named(KIND, CONNECTION, "ep_1");
    expect(new CreateJournal(dir).takeUnsaved(KIND, FP, CONNECTION)).toEqual([]);
  });

  it("the file that settled an answer stays while the answer's file does; both go once old and settled", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const answers = file(`${GONE}-a.jsonl`, answered("e1", "ep_1"));
    const settling = file(`${GONE + 1}-b.jsonl`, [{ h: `${answers}#answer:e1` }], 20);
    expect(new CreateJournal(dir).takeUnsaved(KIND, FP, CONNECTION)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([answers, settling]);
    // Both old: both go.
    file(answers, answered("e1", "ep_1"), 20);
    expect(new CreateJournal(dir).takeUnsaved(KIND, FP, CONNECTION)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a settling file whose answer's file is already gone goes once old", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    file(`${GONE + 1}-b.jsonl`, [{ h: `${GONE}-a.jsonl#answer:e1` }], 20);
    new CreateJournal(dir).takeUnsaved(KIND, FP, CONNECTION);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a setting's value found before a take-over: held once its process closed, else taken once on its connection until an engine names the setting", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const tookOver = (entry: string, policy: string) => ({ p: entry, k: "webhooks:EventTypePolicy", c: CONNECTION, id: "workspace", v: { policy }, t: Date.now() - 60_000 });
    file(`${GONE}-a.jsonl`, [tookOver("p1", "lenient"), { closed: 1 }]);
    expect(new CreateJournal(dir).takeUnsavedPrior("webhooks:EventTypePolicy", CONNECTION, "workspace")).toBeUndefined();
    file(`${GONE + 1}-b.jsonl`, [tookOver("p2", "lenient")]);
    const journal = new CreateJournal(dir);
    expect(journal.takeUnsavedPrior("webhooks:EventTypePolicy", "another connection", "workspace")).toBeUndefined();
    expect(journal.takeUnsavedPrior("webhooks:EventTypePolicy", CONNECTION, "project/p")).toBeUndefined();
    expect(journal.takeUnsavedPrior("webhooks:EventTypePolicy", CONNECTION, "workspace")).toMatchObject({ value: { policy: "lenient" } });
    expect(journal.takeUnsavedPrior("webhooks:EventTypePolicy", CONNECTION, "workspace")).toBeUndefined();
    new CreateJournal(dir).named("webhooks:EventTypePolicy", CONNECTION, "workspace");
    expect(new CreateJournal(dir).takeUnsavedPrior("webhooks:EventTypePolicy", CONNECTION, "workspace")).toBeUndefined();
  });
  it("an adoption of a process the engine closed names the object's holder (the latest adopter) until settled; its file stays as long", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const adoption = (entry: string, name: string) => ({ a: entry, k: KIND, c: CONNECTION, id: "ep_1", n: name, t: Date.now() - 60_000 });
    file(`${GONE}-killed.jsonl`, [adoption("a0", "killed")], 20); // never closed: the state may not hold its adopter
    const adopted = file(`${GONE + 1}-a.jsonl`, [adoption("a1", "shippedHook"), adoption("a2", "hook2"), { closed: 1 }], 20);
    const journal = new CreateJournal(dir);
    expect(journal.adopterOf(KIND, "another connection", "ep_1")).toBeUndefined();
    expect(journal.adopterOf(KIND, CONNECTION, "ep_2")).toBeUndefined();
    expect(journal.adopterOf(KIND, CONNECTION, "ep_1")).toMatchObject({ name: "hook2" });
    expect(readdirSync(dir)).toContain(adopted);
    journal.settleAdoptions(KIND, CONNECTION, "ep_1");
    expect(journal.adopterOf(KIND, CONNECTION, "ep_1")).toBeUndefined();
    expect(new CreateJournal(dir).adopterOf(KIND, CONNECTION, "ep_1")).toBeUndefined();
  });

  it("an adoption is recorded for later processes once its engine closed it, unless this process settled it (its program dropped the old name in the same run)", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const run = new CreateJournal(dir);
    run.adopted(KIND, CONNECTION, "ep_kept", "shippedHook");
    run.adopted(KIND, CONNECTION, "ep_dropped", "orderHook");
    run.settleAdoptions(KIND, CONNECTION, "ep_dropped");
    expect(new CreateJournal(dir).adopterOf(KIND, CONNECTION, "ep_kept")).toBeUndefined(); // not closed yet
    run.closed();
    const later = new CreateJournal(dir);
    expect(later.adopterOf(KIND, CONNECTION, "ep_kept")).toMatchObject({ name: "shippedHook" });
    expect(later.adopterOf(KIND, CONNECTION, "ep_dropped")).toBeUndefined();
  });

  it("a setting's value found before, with the resource's identity: only that resource takes it, and only its naming settles it", () => {
    dir = mkdtempSync(join(tmpdir(), "journal-"));
    const policy = "webhooks:EventTypePolicy";
    file(`${GONE}-a.jsonl`, [{ p: "p1", k: policy, c: CONNECTION, id: "workspace", v: { policy: "lenient" }, i: "dev", t: Date.now() - 60_000 }]);
    // Another stack's resource, or a read or delete (outputs only: no identity), neither takes nor settles it.
    expect(new CreateJournal(dir).takeUnsavedPrior(policy, CONNECTION, "workspace", "staging")).toBeUndefined();
    expect(new CreateJournal(dir).takeUnsavedPrior(policy, CONNECTION, "workspace")).toBeUndefined();
    new CreateJournal(dir).named(policy, CONNECTION, "workspace", "staging");
    new CreateJournal(dir).named(policy, CONNECTION, "workspace");
    expect(new CreateJournal(dir).takeUnsavedPrior(policy, CONNECTION, "workspace", "dev")).toMatchObject({ value: { policy: "lenient" } });
    new CreateJournal(dir).named(policy, CONNECTION, "workspace", "dev");
    expect(new CreateJournal(dir).takeUnsavedPrior(policy, CONNECTION, "workspace", "dev")).toBeUndefined();
  });
});
