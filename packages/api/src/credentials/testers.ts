import type { CredentialTestResult, ServiceName } from '@dash/contracts';

/** Makes the service's lightest authenticated call with the given values. */
export type CredentialTester = (values: Record<string, string>, signal: AbortSignal) => Promise<CredentialTestResult>;

/**
 * The services whose connector can test credentials. Connectors register here as they arrive;
 * a service without one answers `{ ok: false }` saying so, without sending anything anywhere.
 */
export const credentialTesters: Partial<Record<ServiceName, CredentialTester>> = {};
