// The dashboard's server entry (`npm start`, the Docker image, the browser tests): adapter-node's
// build/index.js, once a variable set to the empty string counts as unset, as it does everywhere in
// this app. adapter-node takes HOST and PORT as they are set, so a blank `HOST=` from an env file
// would otherwise listen on every interface instead of this machine's loopback.
for (const [name, value] of Object.entries(process.env)) {
  if (value?.trim() === '') delete process.env[name];
}
process.env.HOST ??= '127.0.0.1';
process.env.PORT ??= '3000';
await import('./build/index.js');
