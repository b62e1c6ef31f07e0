/**
 * DynamoDB item size as DynamoDB defines it for capacity: attribute names plus values; strings
 * and binaries by length, numbers ~1 byte per two significant digits + 1, null/boolean 1 byte,
 * lists and maps 3 bytes + 1 per element + their contents. Used for the write units of failed
 * conditional writes, which consume capacity but return no ConsumedCapacity.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

function numberSize(text: string): number {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  return 0;
}

/** Bytes of a marshalled item. */
export function itemSize(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

/** Write units of writing (or failing a condition on) an item of `bytes`: 1 per KB, at least 1. */
export function writeUnitsFor(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}
