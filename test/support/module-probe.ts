/**
 * Preloaded with `node --import dist/test/support/module-probe.js`: registers a module resolution
 * hook (module-probe-hooks.ts) that appends every module specifier the process resolves to the file
 * named by MODULE_PROBE_FILE. A test reads that file to see which packages a gqlgw process loaded.
 */
import { register } from 'node:module';

register('./module-probe-hooks.js', import.meta.url);
