/**
 * A program that is data: config `spec` is a JSON list of `{kind, name, args,
 * aliases?}` and each entry is declared with the SDK class of its kind. Any string
 * in `args` containing `$MARKER` is built from the secret config `marker`, so it is
 * a Pulumi secret end to end (the model scans every output for the marker).
 */
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

interface Declared {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  aliases?: string[];
}

const config = new pulumi.Config();
const spec = JSON.parse(config.require("spec")) as Declared[];
const marker = config.requireSecret("marker");

const CLASSES: Record<string, new (name: string, args: any, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource> = {
  "webhooks:Endpoint": svc.webhooks.Endpoint,
  "webhooks:EventType": svc.webhooks.EventType,
  "webhooks:EventTypePolicy": svc.webhooks.EventTypePolicy,
  "webhooks:Source": svc.webhooks.Source,
  "webhooks:OperationalEndpoint": svc.webhooks.OperationalEndpoint,
  "webhooks:WorkspaceSettings": svc.webhooks.WorkspaceSettings,
  "inboxes:Inbox": svc.inboxes.Inbox,
  "infra:QuotaRequest": svc.infra.QuotaRequest,
  "infra:QuotaLimits": svc.infra.QuotaLimits,
};

/** Strings naming `$MARKER` become secrets built from the marker; the rest is kept. */
function withSecrets(value: unknown): unknown {
  if (typeof value === "string" && value.includes("$MARKER")) return marker.apply((m) => value.split("$MARKER").join(m));
  if (Array.isArray(value)) return value.map(withSecrets);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSecrets(v)]));
  return value;
}

const ids: Record<string, pulumi.Output<string>> = {};
for (const d of spec) {
  const Class = CLASSES[d.kind];
  if (!Class) throw new Error(`unknown kind ${d.kind}`);
  const resource = new Class(d.name, withSecrets(d.args), d.aliases?.length ? { aliases: d.aliases.map((name) => ({ name })) } : {});
  ids[d.name] = resource.id;
}

export const resourceIds = ids;
