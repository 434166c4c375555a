/** The single-tenant relay's own scope; no tenant may take this id. */
export const SINGLE_TENANT = 'default';
export const TENANT_ID = /^[a-z0-9][a-z0-9-]{2,39}$/;

/**
 * Failed admin sign-ins per client address. `_` cannot begin a tenant id, so no tenant's key is ever this one.
 */
export const adminRateKey = (ip: string) => `relay:{_admin}:hits:${ip}`;

/**
 * Every key of one tenant's data in the store; tenants never share one. The tenant is the key's hash tag
 * (`{…}`), so on a Redis Cluster all of one tenant's keys hash to one slot, which is what lets one Lua
 * script touch several of them; different tenants spread over the cluster's masters.
 */
export const keysOf = (tenant: string) => ({
  events: `relay:{${tenant}}:events`,
  // `hits`, not the `rate` of the sorted sets relays before the list-based window kept: a relay of
  // either kind running beside the other during a rollout then never meets a key of the wrong type.
  webhookRate: (integration: string, ip: string) => `relay:{${tenant}}:hits:${integration}:${ip}`,
  pollRate: (ip: string) => `relay:{${tenant}}:hits:poll:${ip}`,
  delivery: (integration: string, id: string) => `relay:{${tenant}}:delivery:${integration}:${id}`,
  /** `GET …/refusals`' own rate window, apart from the events poll's (`refusals` is no integration's name). */
  refusalsPollRate: (ip: string) => `relay:{${tenant}}:hits:refusals:${ip}`,
  /** The refusal counts of one UTC hour (its start, in ms): a hash of `<integration>:<reason>` to a count. */
  refusals: (hour: number) => `relay:{${tenant}}:refusals:${hour}`,
});
