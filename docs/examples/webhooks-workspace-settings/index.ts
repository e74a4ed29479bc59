import * as svc from "pulumi-svc";

// The workspace's settings exist already: this takes them over, and deleting the
// resource puts back what it found.
const settings = new svc.webhooks.WorkspaceSettings("settings", { endpointVerification: "optional" });

export const plan = settings.plan;
