import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "../core/context";

export function registerEvents(_app: FastifyInstance, _ctx: EmulatorContext): void {
  // Not implemented yet.
}
