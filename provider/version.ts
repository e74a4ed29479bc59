/**
 * The package version, for `User-Agent: pulumi-svc/<version>`. Found by walking up
 * from this file to the package's own package.json, because the depth differs
 * between the sources (provider/) and the build (dist/provider/).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

function findVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "pulumi-svc" && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return "0.0.0";
  }
}

export const PACKAGE_VERSION = findVersion();
export const USER_AGENT = `pulumi-svc/${PACKAGE_VERSION}`;
