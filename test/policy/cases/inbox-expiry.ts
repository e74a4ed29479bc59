import { inboxExpiry } from "../../../policy/policies/inbox-expiry";
import { UNKNOWN_STRING } from "../wire";
import { inputs, type PolicyCases } from "./types";

export const cases: PolicyCases = {
  policy: inboxExpiry,
  resource: [
    { title: "a day passes", kind: "inboxes:Inbox", props: inputs({ label: "signup test", expiresInMinutes: 1440 }), violations: [] },
    { title: "exactly the ceiling passes", kind: "inboxes:Inbox", props: inputs({ label: "week", expiresInMinutes: 10080 }), violations: [] },
    {
      title: "no expiry",
      kind: "inboxes:Inbox",
      props: inputs({ label: "forever" }),
      violations: ["expiresInMinutes is not set; set it to at most 10080 minutes (config maxExpiresInMinutes) so the inbox expires."],
    },
    {
      title: "above the ceiling",
      kind: "inboxes:Inbox",
      props: inputs({ label: "month", expiresInMinutes: 43200 }),
      violations: ["expiresInMinutes is 43200, above the maximum of 10080 minutes (config maxExpiresInMinutes)."],
    },
    {
      title: "config lowers the ceiling",
      kind: "inboxes:Inbox",
      config: { maxExpiresInMinutes: 60 },
      props: inputs({ label: "day", expiresInMinutes: 1440 }),
      violations: ["expiresInMinutes is 1440, above the maximum of 60 minutes (config maxExpiresInMinutes)."],
    },
    { title: "config raises the ceiling", kind: "inboxes:Inbox", config: { maxExpiresInMinutes: 50000 }, props: inputs({ label: "month", expiresInMinutes: 43200 }), violations: [] },
    { title: "expiry unknown during preview: silent", kind: "inboxes:Inbox", props: inputs({ label: "x", expiresInMinutes: UNKNOWN_STRING }), violations: [] },
  ],
};
