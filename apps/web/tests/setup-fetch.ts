// Set up before each browser test file (vitest.config.ts): the test process's own fetch lets a connection to a
// dashboard sit idle for at most a second before it is closed, instead of 4 s against the dashboard's 5 s
// KEEP_ALIVE_TIMEOUT. With a second's margin, a machine busy enough to hold the dashboard's event loop up past it has
// the server close an idle connection just as the test sends its next request on it: "fetch failed: other side
// closed" (ECONNRESET), seen under load on a request that was never received. Four seconds of margin leave no such
// race on a request the dashboard would have answered.
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
