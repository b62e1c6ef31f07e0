/**
 * When a tenant's in-flight cap (maxConcurrentRuns) is worth enforcing. Enforcing it costs every run
 * a slot on the tenants table (acquire and release: about 4 write units) plus the conditional takes
 * that fail while the tenant is at its cap. The executor fleet itself can never have more calls in
 * flight than its maximum concurrency × batch size; a cap at least that high could never refuse a
 * slot, so such a tenant takes none.
 */

/** True when `cap` could refuse a slot to a fleet of at most `fleetMaxCallsInFlight` calls. */
export function inFlightCapCanBind(cap: number, fleetMaxCallsInFlight: number): boolean {
  return cap < fleetMaxCallsInFlight;
}
