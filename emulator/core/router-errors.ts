/**
 * Answers produced before a route runs (the router, Node's HTTP parser) follow the
 * error contract too, with an `X-Request-ID`:
 *
 * - a path that is not valid percent-encoding: 400 `bad_request`;
 * - a path parameter longer than MAX_PARAM_LENGTH: 404 `not_found` with no details
 *   (no object has such an id; shorter ids reach the route, whose 404 names the kind);
 * - a request Node cannot parse (bad request line, headers over 16 KiB, ...): 400 `bad_request`.
 */
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, badRequest, errorBody, unknownPath } from "./errors";

/** Longest path parameter handed to a route (longer ones are a 404 at the router). */
export const MAX_PARAM_LENGTH = 1024;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The client's `X-Request-ID` when valid (1–128 of letters, digits, `.`, `_`, `-`), else a new one. */
export function requestIdFor(given: string | string[] | undefined): string {
  return typeof given === "string" && REQUEST_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, "")}`;
}

/** Fastify's `frameworkErrors`: the router's own refusals. */
export function routerError(err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): void {
  req.requestId = requestIdFor(req.headers["x-request-id"]);
  const apiError = err.code === "FST_ERR_MAX_PARAM_LENGTH" ? unknownPath() : badRequest("The request path is not valid percent-encoding.");
  void reply.status(apiError.status).header("x-request-id", req.requestId).send(errorBody(apiError, req.requestId));
}

/** Fastify's `clientErrorHandler`: a request Node could not parse gets a 400 in the contract, then the connection closes. */
export function clientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) {
    const requestId = requestIdFor(undefined);
    const why = err.code === "HPE_HEADER_OVERFLOW" ? "The request line and headers are larger than 16 KiB." : "The request could not be read as HTTP.";
    const body = JSON.stringify(errorBody(new ApiError(400, "bad_request", why), requestId));
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
