/**
 * Where a `pulumi` run's Node.js processes spend their CPU. With `bench:cli --cpu-prof`
 * every node process of a run (the program, the dynamic-provider plugin, the native
 * plugin, our language host) writes a V8 CPU profile (cpu-prof-preload.cjs); this sums each process's busy time
 * (every sample but idle) and names where it went, by package or source directory, so a
 * phase that misses its target says which process and which code spent the time.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** A process's role, told by the code it ran. */
const ROLES: [role: string, url: RegExp][] = [
  ["dynamic-provider plugin", /@pulumi\/pulumi\/cmd\/dynamic-provider\//],
  ["native plugin", /\/native\/main\.js$/],
  ["program", /@pulumi\/pulumi\/cmd\/run\//],
];

/** Where a function lives: its npm package, node's own code, V8's pseudo-frames, or our top directory. */
function areaOf(url: string, functionName: string): string {
  if (url === "") return functionName; // (garbage collector), (program), (idle)
  if (url.startsWith("node:")) return "node (built-in modules)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(provider|sdk|native|bench|dist\/[a-z]+)\//.exec(url);
  return own ? own[1]! : url;
}

export interface ProcessCpu {
  role: string;
  busyMs: number;
  /** Busy milliseconds by area, largest first. */
  areas: [area: string, ms: number][];
}

/** Each profile in `dir` (one per node process of the run), as busy time by area. */
export function summarizeProfiles(dir: string): ProcessCpu[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => {
      const profile = JSON.parse(readFileSync(join(dir, f), "utf8")) as CpuProfile;
      const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
      const byArea = new Map<string, number>();
      let role = "other node process";
      for (const frame of frames.values()) {
        const match = ROLES.find(([, url]) => url.test(frame.url));
        if (match) role = match[0];
      }
      profile.samples.forEach((id, i) => {
        const frame = frames.get(id)!;
        if (frame.functionName === "(idle)") return;
        const area = areaOf(frame.url, frame.functionName);
        byArea.set(area, (byArea.get(area) ?? 0) + profile.timeDeltas[i]! / 1000);
      });
      const areas = [...byArea].sort((a, b) => b[1] - a[1]);
      return { role, busyMs: areas.reduce((sum, [, ms]) => sum + ms, 0), areas };
    });
}

/** A profile summary as markdown lines: each process's busy time and its five largest areas. */
export function profileLines(heading: string, processes: ProcessCpu[]): string[] {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return [
    `- ${heading}: ${processes.length === 0 ? "no node process" : ""}`,
    ...processes
      .sort((a, b) => b.busyMs - a.busyMs)
      .map((p) => `  - ${p.role}: ${s(p.busyMs)} s busy; ${p.areas.slice(0, 5).map(([area, ms]) => `${area} ${s(ms)}`).join(", ")}`),
  ];
}
