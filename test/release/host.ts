/**
 * A loopback HTTP server standing in for the release host (README, "The native provider", "Getting it"): it serves
 * the plugin archives of `npm run release` by name and keeps the requests it got. And the
 * environment of a user who has the CLI and Node but no plugin, whose CLI fetches the plugin
 * from there: the schema's `pluginDownloadURL` (GitHub releases) redirected to the server by
 * PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES, as an organisation mirrors a release host.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { cliBinDir } from "../support/pulumi-cli";
import { releasePart } from "./artifacts";

/** This machine's platform as the CLI names it in a plugin archive's name. */
export const PLATFORM = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;

/** PATH for a user with the CLI (and the YAML host beside it) and Node, and no `pulumi-resource-svc` anywhere on it. */
export const userPath = () => [cliBinDir(), path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter);

export interface ReleaseHost {
  /** The server's base URL, with a trailing slash. */
  url: string;
  /** The directory of the archives it serves. */
  archives: string;
  /** The requests it got, as "METHOD /path" (decoded). */
  served: string[];
  /** The environment that makes the CLI fetch the plugin from this host (PATH without the plugin, acquisition on, the schema's URL redirected). */
  env(): Record<string, string>;
}

/** Starts the release host for this file's suites (beforeAll) and stops it after them. */
export function useReleaseHost(): () => ReleaseHost {
  let server: http.Server | undefined;
  let host: ReleaseHost | undefined;
  beforeAll(async () => {
    const archives = await releasePart("plugin");
    const served: string[] = [];
    server = http.createServer((req, res) => {
      // Decoded, as the archive's file name.
      const url = decodeURIComponent(req.url ?? "");
      served.push(`${req.method} ${url}`);
      const file = path.join(archives, path.basename(url));
      if (!fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/gzip", "content-length": fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    host = {
      url,
      archives,
      served,
      env: () => ({ PATH: userPath(), PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "false", PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^github://api\\.github\\.com/pulumi-svc/=${url}` }),
    };
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return () => {
    if (!host) throw new Error("the release host is not started (useReleaseHost runs in beforeAll)");
    return host;
  };
}
