/** `pulumi convert` of a YAML program of native resources into a language, through that language's host. */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { pulumiAsync } from "../support/pulumi-cli";
import type { NativeStack } from "./support";

/**
 * `pulumi convert --language LANGUAGE --generate-only`, as a user runs it in a YAML project: the default `--from
 * yaml` (Pulumi YAML's converter, `pulumi-converter-yaml` beside the CLI) of a program of one inbox, `bin`,
 * labelled "first", in a directory beside `s`'s program, with its PATH (the plugin gives the schema).
 * The new project's directory, and all the command printed.
 */
export async function convert(s: NativeStack, language: string): Promise<{ out: string; output: string }> {
  const source = path.join(s.dir, "yaml");
  const out = path.join(s.dir, `converted-${language}`);
  fs.mkdirSync(source);
  fs.writeFileSync(path.join(source, "Pulumi.yaml"), "name: converted\nruntime: yaml\nresources:\n  bin:\n    type: svc:inboxes:Inbox\n    properties:\n      label: first\n");
  const run = await pulumiAsync({ ...s.options("preview"), cwd: source }, ["convert", "--language", language, "--out", out, "--generate-only", "--color", "never"]);
  const output = run.output + run.stderr;
  expect(run.code, output).toBe(0);
  expect(output).toContain("Converting from yaml...");
  return { out, output };
}
