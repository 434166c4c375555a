/** Bundles the relay (src/main.ts, as the Docker image runs it) into `outfile`; resolves with it. */
export function bundleRelay(outfile: string): Promise<string>;
