/**
 * What the service's answers tell of its clock. Every HTTP answer carries `Date`, the
 * service's time when it answered, in whole seconds (RFC 9110 §6.6.1). An answer to a
 * request sent at local time `sent` and answered at `answered` was dated at some
 * service time in [Date, Date + 1 s), at some local time in [sent, answered], so
 * service time minus local time is at least `Date - answered`. The largest such bound
 * seen on the connection is kept: the service's clock read at least `local + bound`
 * when this machine's read `local`, whatever the two clocks' difference. Reconciliation
 * (engine/reconcile.ts) uses it to rule out objects created before a create was sent.
 */
export class ServiceClock {
  private bound: number | undefined;

  /** Learn from one answer's `Date` header (ignored when absent or unreadable). */
  observe(dateHeader: string | undefined, answeredAt: number): void {
    const date = dateHeader === undefined ? Number.NaN : Date.parse(dateHeader);
    if (Number.isNaN(date)) return;
    const bound = date - answeredAt;
    if (this.bound === undefined || bound > this.bound) this.bound = bound;
  }

  /** The earliest the service's clock can have read when this machine's read `local`; undefined before any dated answer. */
  earliestAt(local: number): number | undefined {
    return this.bound === undefined ? undefined : local + this.bound;
  }
}
