/** `pulumi convert` of a program of native resources into a language, through that language's host. */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { pulumiAsync } from "../support/pulumi-cli";
import type { NativeStack } from "./support";

/**
 * `pulumi convert --from pcl --language LANGUAGE --generate-only` (PCL, Pulumi's own
 * intermediate language: no converter plugin needed) of a program of one inbox, `bin`, labelled
 * "first", beside `s`'s program, with its PATH (the plugin gives the schema): the new project's directory.
 */
export async function convert(s: NativeStack, language: string): Promise<string> {
  const source = path.join(s.dir, "pcl");
  const out = path.join(s.dir, `converted-${language}`);
  fs.mkdirSync(source);
  fs.writeFileSync(path.join(source, "main.pp"), 'resource bin "svc:inboxes:Inbox" {\n  label = "first"\n}\n');
  const run = await pulumiAsync({ ...s.options("preview"), cwd: source }, ["convert", "--from", "pcl", "--language", language, "--out", out, "--generate-only", "--color", "never"]);
  expect(run.code, run.output + run.stderr).toBe(0);
  return out;
}
