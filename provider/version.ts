/**
 * The package version, for `User-Agent: pulumi-svc/<version>`, and its directory. Found by walking up
 * from this file to the package's own package.json, because the depth differs
 * between the sources (provider/) and the build (dist/provider/).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

function findPackage(): { root: string; version: string } | undefined {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "pulumi-svc" && pkg.version) return { root: dir, version: pkg.version };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

const found = findPackage();
/** The package's own directory (where package.json and schema.json are), when it is found. */
export const PACKAGE_ROOT = found?.root;
export const PACKAGE_VERSION = found?.version ?? "0.0.0";
export const USER_AGENT = `pulumi-svc/${PACKAGE_VERSION}`;
