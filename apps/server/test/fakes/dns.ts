import { Packet, createServer } from 'dns2';
import type { DnsServer, Resource } from 'dns2';

/**
 * What the fake answers for a name: a CNAME, A/AAAA addresses, TXT records (each an array of
 * character-strings, as RFC 1035 §3.3.14 stores them; a plain string is one). Unknown names are
 * NXDOMAIN; a known name without a record of the asked type is an empty answer (NODATA).
 */
export type DnsRecords = {
  cname?: string;
  a?: string[];
  aaaa?: string[];
  txt?: (string | string[])[];
  /** Answer SERVFAIL for this name (a broken zone or a failing server: no answer either way). */
  servfail?: boolean;
};

/**
 * A DNS server on loopback UDP (the `dns2` package) answering A, AAAA, CNAME and TXT questions from
 * `records`, so the domain checks run node:dns for real without the internet. `records` can be
 * changed between calls; names are looked up lower-cased.
 */
export async function startFakeDns(records: Record<string, DnsRecords>) {
  const server: DnsServer = createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = question?.name.toLowerCase().replace(/\.$/, '') ?? '';
      const rec = records[name];
      if (!question || !rec) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        void send(response);
        return;
      }
      if (rec.servfail) {
        response.header.rcode = Packet.RCODE.SERVFAIL;
        void send(response);
        return;
      }
      const { type } = question;
      const add = (record: Partial<Resource>) =>
        response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, ...record }));
      // A name with a CNAME has no other records (RFC 1034 §3.6.2): every question gets the alias.
      if (rec.cname && (type === Packet.TYPE.CNAME || type === Packet.TYPE.A || type === Packet.TYPE.AAAA)) {
        add({ type: Packet.TYPE.CNAME, domain: rec.cname });
      } else if (type === Packet.TYPE.A) {
        for (const address of rec.a ?? []) add({ type: Packet.TYPE.A, address });
      } else if (type === Packet.TYPE.AAAA) {
        for (const address of rec.aaaa ?? []) add({ type: Packet.TYPE.AAAA, address });
      } else if (type === Packet.TYPE.TXT) {
        for (const data of rec.txt ?? []) add({ type: Packet.TYPE.TXT, data });
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port;
  if (!port) throw new Error('the fake DNS server has no UDP port');
  return {
    server: `127.0.0.1:${port}`,
    records,
    close: () => server.close(),
  };
}
