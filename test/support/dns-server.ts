/**
 * A name server on 127.0.0.1 (UDP) for tests: answers A queries for the names it is given, and
 * drops every other query without a word, like a tenant's name server that never answers.
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, for Resolver.setServers / TARGET_DNS_SERVERS. */
  server: string;
  /** Every question name received, in order (dropped ones included). */
  queries: string[];
  close(): Promise<void>;
}

/** The question's name and where the question section ends. */
function questionOf(query: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  for (let length = query[at] ?? 0; length > 0; length = query[at] ?? 0) {
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 5 }; // the root label, QTYPE, QCLASS
}

function answerA(query: Buffer, end: number, address: string): Buffer {
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(1, 6); // one answer
  header.writeUInt32BE(0, 8); // no authority, no additional records
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  record.writeUInt16BE(1, 2); // A
  record.writeUInt16BE(1, 4); // IN
  record.writeUInt32BE(60, 6); // TTL
  record.writeUInt16BE(4, 10);
  for (const [i, octet] of address.split('.').entries()) record[12 + i] = Number(octet);
  return Buffer.concat([header, query.subarray(12, end), record]);
}

/** Starts the server; `answers` maps names to the IPv4 address their A query gets. */
export async function startFakeDnsServer(answers: Record<string, string> = {}): Promise<FakeDnsServer> {
  const socket = createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (query, from) => {
    const { name, end } = questionOf(query);
    queries.push(name);
    const qtype = query.readUInt16BE(end - 4);
    const address = answers[name];
    if (address === undefined) return; // dropped: the resolver waits out its timeout
    const reply = qtype === 1 ? answerA(query, end, address) : emptyAnswer(query, end);
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** A name that exists with no record of the asked type (AAAA of an IPv4-only name): NOERROR, no answer. */
function emptyAnswer(query: Buffer, end: number): Buffer {
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt32BE(0, 6);
  header.writeUInt16BE(0, 10);
  return Buffer.concat([header, query.subarray(12, end)]);
}
