import { crc32 } from 'node:zlib';

/**
 * A zip archive of a few small text files, stored without compression and with a fixed date, so
 * the same files always make the same bytes (and the same SHA-256, which the catalogs publish).
 * Plugin archives and skill archives are a few kilobytes of Markdown and JSON: compression would
 * buy little and cost the byte-for-byte stability.
 */

/** 1980-01-01 00:00, the earliest MS-DOS date: the archive says nothing about when it was made. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** Bit 11: the names are UTF-8. */
const UTF8_FLAG = 0x0800;

export interface ZipFile {
  /** A relative path with forward slashes. */
  path: string;
  content: string | Uint8Array;
}

/**
 * The fields a local file header and its central directory entry share, from `at`: version needed
 * (2.0), flags, method (stored), time, date, CRC-32, both sizes, the name's length, no extra field.
 */
function writeEntryFields(header: Buffer, at: number, crc: number, size: number, nameLength: number): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(UTF8_FLAG, at + 2);
  header.writeUInt16LE(0, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(crc, at + 10);
  header.writeUInt32LE(size, at + 14);
  header.writeUInt32LE(size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
  header.writeUInt16LE(0, at + 24);
}

export function zipFiles(files: ZipFile[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.path, 'utf8');
    const data = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : Buffer.from(file.content);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, crc, data.length, name.length);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    writeEntryFields(central, 6, crc, data.length, name.length);
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}
