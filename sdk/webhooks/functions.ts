/**
 * Read-only functions that run in the program process (not in the plugin):
 * settings come from `new pulumi.Config("svc")` there, else the environment.
 * They return plain data, not Outputs. One implementation with the native plugin's
 * (provider/functions.ts).
 */
import { runReadFunction } from "../program";
import type { EndpointInfo } from "./endpoint";

export type { EndpointInfo };

export interface GetEndpointArgs {
  /** The endpoint's id. */
  id: string;
  /** Connection profile (see `EndpointArgs.profile`). */
  profile?: string;
}

export interface GetEndpointsArgs {
  /** Only endpoints of this project. */
  projectId?: string;
  /** Connection profile (see `EndpointArgs.profile`). */
  profile?: string;
}

/** One endpoint by id. Fails when it does not exist or the key cannot see it. */
export async function getEndpoint(args: GetEndpointArgs): Promise<EndpointInfo> {
  return runReadFunction<EndpointInfo>("webhooks:getEndpoint", args);
}

/** Every endpoint the key can see (all pages), optionally of one project. */
export async function getEndpoints(args: GetEndpointsArgs = {}): Promise<EndpointInfo[]> {
  return runReadFunction<EndpointInfo[]>("webhooks:getEndpoints", args);
}
