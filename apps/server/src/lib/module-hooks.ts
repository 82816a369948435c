import { registerHooks } from 'node:module';
import type { ResolveFnOutput } from 'node:module';

/**
 * Start-up cost of two packages' package.json files, removed by resolving their files ourselves.
 *
 * drizzle-orm's package.json is 179 KB and date-fns's 199 KB (an `exports` entry per file). For every
 * module file it loads, Node 24's ES module loader looks up the file's package scope to learn its
 * format (`getPackageScopeConfig`), and that copies the whole package.json, `exports` parsed again,
 * each time. With the few hundred files of the two packages that was about 4 s of a 15 s start on a
 * loaded 2-core machine, and 100+ MiB of heap garbage that stays resident as RSS (bench/README.md
 * "Embedded mode"). Both packages are `"type": "module"` and their ES files import each other only by
 * relative `.js` paths, so such an import is that file, an ES module, without asking the package.json.
 * Bare specifiers (`drizzle-orm/pg-core`) go through Node's resolver once per specifier and
 * conditions, not once per importing file.
 */
const SCOPED = ['/node_modules/drizzle-orm/', '/node_modules/date-fns/'];
const PACKAGES = ['drizzle-orm', 'date-fns'];

const bare = new Map<string, ResolveFnOutput>();

function inScoped(url: string): boolean {
  return SCOPED.some((dir) => url.includes(dir));
}

export function registerFastResolve(): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (
        parent !== undefined &&
        parent.startsWith('file:') &&
        inScoped(parent) &&
        (specifier.startsWith('./') || specifier.startsWith('../')) &&
        specifier.endsWith('.js')
      ) {
        const url = new URL(specifier, parent).href;
        // Only when the target stays inside the package, whose "type" is "module".
        if (inScoped(url)) return { url, format: 'module', shortCircuit: true };
      }
      const name = specifier.split('/')[0];
      // Our own files all resolve a bare name to the same node_modules; files inside node_modules
      // may have nested copies, so theirs are not shared.
      if (name && PACKAGES.includes(name) && parent?.includes('/node_modules/') === false) {
        const key = `${specifier}\0${context.conditions.join(',')}`;
        const hit = bare.get(key);
        if (hit) return hit;
        const resolved = nextResolve(specifier, context);
        bare.set(key, { ...resolved, shortCircuit: true });
        return resolved;
      }
      return nextResolve(specifier, context);
    },
  });
}
