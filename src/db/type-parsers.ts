import pg from 'pg';
import { parseTextArray, TEXT_ARRAY } from './text-array.js';
import { parseTimestamptz, TIMESTAMPTZ } from './timestamps.js';

/** The type parsers of the service's PostgreSQL pool: the driver's, with fast `timestamptz` and `text[]`. */
export const poolTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (format !== 'binary') {
      if (oid === TIMESTAMPTZ) return parseTimestamptz;
      if (oid === TEXT_ARRAY) return parseTextArray;
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
};
