import { tmpdir } from 'node:os';
import path from 'node:path';

/** glibc's MALLOC_TRIM_THRESHOLD_ given to the embedded server: 1 MiB (glibc's default grows to 64 MiB). */
const TRIM_THRESHOLD = String(1024 * 1024);

/**
 * Embedded mode on Linux: starts this process again (same pid, `process.execve`) with glibc's malloc
 * told to give freed memory back to the system, before anything else is loaded. V8 compiles PGlite's
 * hottest WebAssembly functions with TurboFan on helper threads as the embedded database starts; one
 * of them (PostgreSQL's parser) takes about 600 MB of compiler memory for a few seconds, and glibc
 * kept what those threads freed in their arenas: about 65 MiB of idle RSS for the life of the process
 * (bench/README.md "Embedded mode: malloc's arenas"). The compile cache is then on from the first
 * module (NODE_COMPILE_CACHE, at the folder `enableCompileCache()` picks by default), main.ts included,
 * so the started process never loads Node's TypeScript stripper (about 17 MiB).
 *
 * Does nothing elsewhere: with DATABASE_URL (PostgreSQL), off Linux, under a debugger, when
 * MALLOC_TRIM_THRESHOLD_ is set already (the restarted process; or set it yourself to skip this), or
 * when Node refuses (the permission model).
 *
 * It reads process.env before config/env.ts is loaded: that module and its packages would otherwise
 * be loaded twice, the first time outside the compile cache.
 */
export function restartWithMallocTrim(): void {
  const env = process.env;
  if (
    process.platform !== 'linux' ||
    env.DATABASE_URL ||
    env.MALLOC_TRIM_THRESHOLD_ !== undefined ||
    process.execArgv.some((a) => a.startsWith('--inspect')) ||
    typeof process.execve !== 'function'
  )
    return;
  const next: NodeJS.ProcessEnv = { ...env, MALLOC_TRIM_THRESHOLD_: TRIM_THRESHOLD };
  if (next.NODE_COMPILE_CACHE === undefined)
    next.NODE_COMPILE_CACHE = path.join(tmpdir(), 'node-compile-cache');
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], next);
  } catch {
    // Not allowed here: start as we are.
  }
}
