/**
 * A request refused before its body was read (413) must still have its body read:
 * answering and closing while the client is still sending makes the kernel reset the
 * connection, and clients that read the answer only after sending (curl) then see a
 * reset instead of the 413. So the rest of the body is read and discarded first, up to
 * DRAIN_LIMIT bytes; past that (abuse), the connection is closed after the answer.
 */
import type { IncomingMessage } from "node:http";

/** How much of a refused body is read and thrown away to keep the connection (64 MiB). */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/** Read and discard the rest of `req`; true when it ended within `limit` bytes. */
export function drainBody(req: IncomingMessage, limit = DRAIN_LIMIT): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      req.off("data", onData).off("end", onEnd).off("error", onFail).off("close", onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const onClose = () => finish(req.complete);
    req.on("data", onData).on("end", onEnd).on("error", onFail).on("close", onClose);
    req.resume();
  });
}
