// Refreshes the mail address lists the engagement verdicts read (decision 0017) from files or URLs
// the operator names; the server itself never downloads them.
//   npm run refresh:mail-addresses -- --apple egress-ip-ranges.csv
//   npm run refresh:mail-addresses -- --gateway "Proofpoint=https://…/ranges.txt"
// Apple's egress CSV has one range a line (`cidr,country,region,city,`); a gateway list is CIDRs one
// a line (anything after whitespace or a comma ignored, `#` comments allowed).
import { readFile, writeFile } from 'node:fs/promises';
import { parseCidr } from '../apps/server/src/modules/tracking/cidr.ts';

const DIR = new URL('../apps/server/src/modules/tracking/mail-addresses/', import.meta.url);

async function load(source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`${source}: HTTP ${res.status}`);
    return res.text();
  }
  return readFile(source, 'utf8');
}

function cidrs(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const first =
      line
        .replace(/#.*/, '')
        .trim()
        .split(/[\s,]+/)[0] ?? '';
    if (first && parseCidr(first)) out.push(first);
  }
  return [...new Set(out)];
}

const today = new Date().toISOString().slice(0, 10);
const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error('usage: refresh:mail-addresses -- [--apple <file|URL>] [--gateway "<name>=<file|URL>"]…');
  process.exit(2);
}
for (let i = 0; i < args.length; i += 2) {
  const [flag, value = ''] = [args[i], args[i + 1]];
  if (flag === '--apple') {
    const file = new URL('apple-mail-privacy.json', DIR);
    const doc = JSON.parse(await readFile(file, 'utf8')) as {
      ranges: string[];
      retrieved: string;
      source: string;
    };
    const ranges = cidrs(await load(value));
    if (ranges.length === 0) throw new Error(`${value}: no ranges`);
    // Apple's own network stays: MPP also egresses from it.
    doc.ranges = [...new Set(['17.0.0.0/8', ...ranges])];
    doc.retrieved = today;
    doc.source = /^https?:/i.test(value) ? value : doc.source;
    await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`apple-mail-privacy.json: ${doc.ranges.length} ranges, retrieved ${today}`);
  } else if (flag === '--gateway') {
    const eq = value.indexOf('=');
    if (eq < 1) throw new Error('--gateway takes "<name>=<file|URL>"');
    const name = value.slice(0, eq);
    const source = value.slice(eq + 1);
    const file = new URL('mail-gateways.json', DIR);
    type Gateway = { name: string; source: string; ranges: string[] };
    const doc = JSON.parse(await readFile(file, 'utf8')) as { retrieved: string; gateways: Gateway[] };
    const ranges = cidrs(await load(source));
    if (ranges.length === 0) throw new Error(`${source}: no ranges`);
    const found = doc.gateways.find((g) => g.name === name);
    if (found) {
      found.ranges = ranges;
      if (/^https?:/i.test(source)) found.source = source;
    } else doc.gateways.push({ name, source, ranges });
    doc.retrieved = today;
    await writeFile(file, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`mail-gateways.json: ${name}: ${ranges.length} ranges, retrieved ${today}`);
  } else {
    throw new Error(`unknown option ${flag}`);
  }
}
