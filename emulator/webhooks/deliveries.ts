import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../core/context";

export function registerDeliveries(_app: FastifyInstance, _ctx: EmulatorContext): void {
  // Not implemented yet.
}
