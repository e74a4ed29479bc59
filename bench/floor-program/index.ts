/**
 * The runtime's floor: `floor:count` dynamic resources whose provider answers at once
 * and keeps nothing, each with three outputs (a name, a value, a version), the shape of
 * a small real resource. `floor:variant` changes every value, for the update phase.
 */
import * as pulumi from "@pulumi/pulumi";

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: String(inputs["name"]), outs: { ...inputs, version: 1 } };
  },
  async diff(_id, olds, news) {
    return { changes: olds["value"] !== news["value"] };
  },
  async update(_id, olds, news) {
    return { outs: { ...news, version: Number(olds["version"]) + 1 } };
  },
  async read(id, props) {
    return { id, props };
  },
  async delete() {},
};

class Minimal extends pulumi.dynamic.Resource {
  constructor(name: string, value: number, extra: Record<string, string>) {
    super(provider, name, { name, value, version: undefined, ...extra }, {}, "floor", "Minimal");
  }
}

const config = new pulumi.Config("floor");
const count = config.requireNumber("count");
const variant = config.getNumber("variant") ?? 1;
// `floor:properties`: that many more string inputs (kept as outputs), for a floor of a real
// resource's shape: the runtime's cost per resource grows with its properties.
const extra = Object.fromEntries(Array.from({ length: config.getNumber("properties") ?? 0 }, (_, i) => [`p${i}`, `value ${i}`]));
for (let i = 0; i < count; i++) new Minimal(`m${i}`, variant, extra);
