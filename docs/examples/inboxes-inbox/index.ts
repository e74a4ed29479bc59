import * as svc from "pulumi-svc";

const bin = new svc.inboxes.Inbox("hooks", { transport: "http", label: "webhook capture", expiresInMinutes: 1440 });
const mail = new svc.inboxes.Inbox("signup", { label: "signup e-mails" });

export const binUrl = bin.url;
export const address = mail.address;
