/** The emulator in a process of its own (one core, as users run it), for the benchmarks. */
import { spawn } from "node:child_process";
import { join } from "node:path";

export async function startEmulatorProcess(extraArgs: string[] = []): Promise<{ url: string; stop: () => void }> {
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
  return { url, stop: () => child.kill("SIGTERM") };
}
