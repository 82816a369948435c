import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const hooks = path.join(path.dirname(fileURLToPath(import.meta.url)), 'module-hooks.ts');

/**
 * A child Node that loads drizzle-orm and date-fns as the server does (from a file of ours), with or
 * without our resolver, and prints every module resolved (URL and format, as a spy registered after
 * ours sees the final answer) and a use of each package.
 */
function load(withHooks: boolean): { resolved: string[]; sql: string; date: string } {
  // Beside our sources, so bare names resolve through the same node_modules as the server's.
  const child = path.join(path.dirname(hooks), `__module-hooks-child-${process.pid}-${withHooks}.mjs`);
  writeFileSync(
    child,
    `import { registerHooks } from 'node:module';
${withHooks ? `const { registerFastResolve } = await import(${JSON.stringify(hooks)}); registerFastResolve();` : ''}
const resolved = new Set();
registerHooks({ resolve(s, c, next) { const r = next(s, c); resolved.add(r.url + ' ' + r.format); return r; } });
const { sql } = await import('drizzle-orm');
const { pgTable, text } = await import('drizzle-orm/pg-core');
const { PgDialect } = await import('drizzle-orm/pg-core');
const { format } = await import('date-fns/format');
const t = pgTable('t', { a: text('a') });
const q = new PgDialect().sqlToQuery(sql\`select \${t.a} from \${t} where \${t.a} = \${'x'}\`);
console.log(JSON.stringify({ resolved: [...resolved].sort(), sql: q.sql, date: format(new Date(2026, 0, 2), 'yyyy-MM-dd') }));
`,
  );
  try {
    return JSON.parse(execFileSync(process.execPath, [child], { encoding: 'utf8' })) as ReturnType<
      typeof load
    >;
  } finally {
    rmSync(child, { force: true });
  }
}

describe('registerFastResolve (the package.json cost of drizzle-orm and date-fns at start)', () => {
  it('resolves every module to the same file and format as Node does, and the packages work', () => {
    const plain = load(false);
    const fast = load(true);
    expect(plain.resolved.filter((r) => r.includes('/drizzle-orm/')).length).toBeGreaterThan(50);
    expect(plain.resolved.filter((r) => r.includes('/date-fns/')).length).toBeGreaterThan(5);
    expect(fast.resolved).toEqual(plain.resolved);
    expect(fast.sql).toBe('select "t"."a" from "t" where "t"."a" = $1');
    expect(fast.date).toBe('2026-01-02');
  }, 60_000);
});
