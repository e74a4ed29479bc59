import { describe, expect, it } from "vitest";
import { operationalEndpointViolations, OPERATIONAL_EVENT_TYPES } from "../../../rules/operational";

describe("operationalEndpointViolations", () => {
  it.each([
    ["valid", { url: "https://ops.example.com/hook", event_types: [...OPERATIONAL_EVENT_TYPES] }, []],
    ["http url", { url: "http://ops.example.com", event_types: ["delivery.dead"] }, [{ path: ["url"], type: "webhooks.url_not_https" }]],
    ["not a url", { url: "nope", event_types: [] }, [{ path: ["url"], type: "url_parsing" }]],
    ["unknown types", { url: "https://x.example", event_types: ["delivery.dead", "order.created", "quota.warning", "x"] }, [
      { path: ["event_types", 1], type: "webhooks.unknown_operational_event_type" },
      { path: ["event_types", 3], type: "webhooks.unknown_operational_event_type" },
    ]],
  ])("%s", (_name, body, expected) => {
    expect(operationalEndpointViolations(body).map(({ msg: _m, ...rest }) => rest)).toEqual(expected);
  });
});
