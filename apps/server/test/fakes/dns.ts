import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** What the fake answers for a name: a CNAME, or A/AAAA addresses. Unknown names are NXDOMAIN. */
export type DnsRecords = { cname?: string; a?: string[]; aaaa?: string[] };

const TYPE = { A: 1, CNAME: 5, AAAA: 28 } as const;

function encodeName(name: string): Buffer {
  const parts = name
    .replace(/\.$/, '')
    .split('.')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (msg[at] !== 0) {
    const len = msg[at] ?? 0;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('ascii'));
    at += len + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function answer(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // class IN
  head.writeUInt32BE(60, 6);
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

const ipv4 = (a: string) => Buffer.from(a.split('.').map(Number));
function ipv6(a: string): Buffer {
  const [head = '', tail = ''] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(Number.parseInt(g, 16), i * 2));
  return out;
}

/**
 * A DNS server on loopback UDP answering A, AAAA and CNAME questions from `records`, so the landing
 * domain check runs node:dns for real without the internet. `records` can be changed between calls.
 */
export async function startFakeDns(records: Record<string, DnsRecords>) {
  const socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    const { name, end } = readName(msg, 12);
    const qtype = msg.readUInt16BE(end);
    const question = msg.subarray(12, end + 4);
    const rec = records[name];
    const answers: Buffer[] = [];
    if (rec?.cname && (qtype === TYPE.CNAME || qtype === TYPE.A || qtype === TYPE.AAAA)) {
      answers.push(answer(TYPE.CNAME, encodeName(rec.cname)));
    } else if (rec && qtype === TYPE.A) {
      for (const a of rec.a ?? []) answers.push(answer(TYPE.A, ipv4(a)));
    } else if (rec && qtype === TYPE.AAAA) {
      for (const a of rec.aaaa ?? []) answers.push(answer(TYPE.AAAA, ipv6(a)));
    }
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // the query id
    header.writeUInt16BE(rec ? 0x8180 : 0x8183, 2); // response, recursion available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, question, ...answers]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    records,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
