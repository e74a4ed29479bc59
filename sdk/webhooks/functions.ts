/**
 * Read-only functions that run in the program process (not in the plugin):
 * settings come from `new pulumi.Config("svc")` there, else the environment.
 * They return plain data, not Outputs.
 */
import { isApiError } from "../../provider/client";
import { explainApiError } from "../../provider/engine/errors";
import { operationContext } from "../../provider/engine/engine-operation";
import { remoteFields } from "../../provider/engine/values";
import { endpointDefinition } from "../../provider/webhooks/endpoint";
import { programConfig } from "../program";
import { walkList } from "../walk";
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

/** Kept for the modules that import it from here; one implementation in ../program. */
export { programConfig };

function toInfo(remote: Record<string, unknown>): EndpointInfo {
  const fields = remoteFields(endpointDefinition, remote);
  return { id: String(remote.id), ...fields } as unknown as EndpointInfo;
}

/** One endpoint by id. Fails when it does not exist or the key cannot see it. */
export async function getEndpoint(args: GetEndpointArgs): Promise<EndpointInfo> {
  const ctx = operationContext(endpointDefinition, args.profile, programConfig());
  try {
    const res = await ctx.client.request<Record<string, unknown>>({ method: "GET", path: endpointDefinition.paths.item(args.id) });
    return toInfo(res.body);
  } catch (err) {
    if (isApiError(err, 404)) throw err.withMessage(`getEndpoint: no endpoint ${args.id} is visible to the API key in use. Check the id and the profile.`);
    throw isApiError(err) ? explainApiError(endpointDefinition, err, "read", { profile: args.profile }, args.id) : err;
  }
}

/** Every endpoint the key can see (all pages), optionally of one project. */
export async function getEndpoints(args: GetEndpointsArgs = {}): Promise<EndpointInfo[]> {
  const ctx = operationContext(endpointDefinition, args.profile, programConfig());
  try {
    const items = await walkList(ctx.client, endpointDefinition.paths.create, { project_id: args.projectId });
    return items.map(toInfo);
  } catch (err) {
    throw isApiError(err) ? explainApiError(endpointDefinition, err, "read", { profile: args.profile, projectId: args.projectId }) : err;
  }
}
