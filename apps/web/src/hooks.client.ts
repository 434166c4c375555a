import { z } from 'zod';

// zod probes `new Function` once to decide whether to compile its parsers; the pages' CSP forbids eval,
// so the probe would be reported as a violation on every page. Interpreted parsing is plenty here.
z.config({ jitless: true });
