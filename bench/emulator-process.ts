/** The emulator in a process of its own (one core, as users run it), for the benchmarks. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export async function startEmulatorProcess(extraArgs: string[] = []): Promise<{ url: string; pid: number; stop: () => void }> {
  const cli = join(__dirname, "..", "dist/emulator/cli.js");
  const child = spawn(process.execPath, [cli, "--port", "0", ...extraArgs], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const m = /listening on (http:\/\/\S+)/.exec(chunk);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

/** A new workspace on the emulator (plan enterprise): its key set, by product. */
export async function newWorkspace(url: string, name: string): Promise<Record<string, { admin: string }>> {
  const res = await fetch(`${url}/_emulator/workspaces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ plan: "enterprise", name }) });
  return (await res.json()) as Record<string, { admin: string }>;
}

/** The provider's stack config for a workspace's keys on the emulator at `url`. */
export function svcConfig(url: string, ws: Record<string, { admin: string }>): Record<string, string> {
  const config: Record<string, string> = {};
  for (const product of ["webhooks", "inboxes", "infra"]) {
    config[`svc:${product}Url`] = `${url}/${product}`;
    config[`svc:${product}ApiKey`] = ws[product]!.admin;
  }
  return config;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined
 * elsewhere. `"waited children"`: the CPU time of its children that have ended and been
 * waited for, theirs included (a finished `pulumi` run and the plugins it waited for).
 */
export function cpuMsOf(pid: number, whose: "own" | "waited children" = "own"): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime and cstime are fields 14-17 of stat(5), in clock ticks (100 per second on Linux).
    const first = whose === "own" ? 11 : 13;
    return (Number(fields[first]) + Number(fields[first + 1])) * 10;
  } catch {
    return undefined;
  }
}

export interface CpuSpent {
  /** CPU time (ms) this process spent. */
  ownCpuMs: number;
  /** CPU time (ms) the emulator process spent (10 ms resolution); undefined without its pid or /proc. */
  emulatorCpuMs?: number;
}

/** Starts counting CPU time, this process's and the emulator's; the returned function reads what was spent since. */
export function cpuClock(emulatorPid?: number): () => CpuSpent {
  const emulatorStart = emulatorPid ? cpuMsOf(emulatorPid) : undefined;
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    const emulatorNow = emulatorStart !== undefined ? cpuMsOf(emulatorPid!) : undefined;
    return { ownCpuMs: (used.user + used.system) / 1000, emulatorCpuMs: emulatorNow !== undefined ? emulatorNow - emulatorStart! : undefined };
  };
}
