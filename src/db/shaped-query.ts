import pg from 'pg';

/**
 * A query of the service's own statements (Database.read, readUnnamed) whose rows are built by a
 * function made once for the statement's columns, instead of pg's generic row building.
 *
 * pg describes the columns anew for every execution: it builds a null-prototype object of the
 * column names, copies it, and looks up each column's parser (`Result.addFields`), then makes each
 * row by copying that object and storing every column by a computed name (`Result.parseRow`). In
 * the service, where one process reads dozens of row shapes through the same two functions, the
 * stores are megamorphic. Here the columns are remembered per statement, checked against every
 * execution's description (names and type ids, so a schema change is seen at once), and each row
 * is an object literal of the statement's own columns, built by a function made for them. Measured
 * in docs/decisions.md ("Performance").
 *
 * The protocol itself (parse, bind, describe, execute, sync; errors; the connection's prepared
 * statements) stays pg's own: only the handling of the row description and of each data row is
 * replaced, through pg's `Query` class, the extension point pg-cursor and pg-query-stream use too.
 */

type Parser = (text: string) => unknown;
type BuildRow = (parsers: readonly Parser[], fields: readonly (string | null)[]) => Record<string, unknown>;

interface Shape {
  names: readonly string[];
  typeIds: readonly number[];
  parsers: readonly Parser[];
  build: BuildRow;
}

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}

interface TypeSource {
  getTypeParser(oid: number, format?: 'text' | 'binary'): Parser;
}

/** What the subclass touches of pg's Query beyond its typings (pg/lib/query.js). */
interface QueryInternals {
  name?: string;
  text: string;
  values?: unknown[];
  _result: { addRow(row: unknown): void; _types?: TypeSource };
  _canceledDueToError: unknown;
  _accumulateRows: boolean;
  handleRowDescription(msg: { fields: FieldDescription[] }): void;
  handleDataRow(msg: { fields: (string | null)[] }): void;
}

const PgQuery = pg.Query as unknown as new (text: string) => QueryInternals;

/**
 * Shapes by statement (its name, or its text when it has none). Statements are built from
 * constants, so there are a few dozen; the bound only guards against a caller that builds texts
 * from data.
 */
const MAX_SHAPES = 1000;
const shapes = new Map<string, Shape>();

/** A row builder for these columns: `{ "id": f[0] === null ? null : p[0](f[0]), … }`. */
function rowBuilder(names: readonly string[]): BuildRow {
  const properties = names.map((name, i) => `${JSON.stringify(name)}: f[${i}] === null ? null : p[${i}](f[${i}])`);
  // The names are written as JSON string literals, so any column name is a plain property key.
  return new Function('p', 'f', `return { ${properties.join(', ')} };`) as BuildRow;
}

function sameColumns(shape: Shape, fields: readonly FieldDescription[]): boolean {
  if (shape.names.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    if (shape.names[i] !== fields[i]!.name || shape.typeIds[i] !== fields[i]!.dataTypeID) return false;
  }
  return true;
}

function shapeFor(key: string, fields: readonly FieldDescription[], types: TypeSource): Shape {
  const known = shapes.get(key);
  if (known && sameColumns(known, fields)) return known;
  const names = fields.map((f) => f.name);
  const shape: Shape = {
    names,
    typeIds: fields.map((f) => f.dataTypeID),
    parsers: fields.map((f) => types.getTypeParser(f.dataTypeID, 'text')),
    build: rowBuilder(names),
  };
  if (!known && shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(key, shape);
  return shape;
}

export class ShapedQuery extends PgQuery {
  #shape: Shape | null = null;

  constructor(statement: { name?: string; text: string; values: unknown[] }) {
    // Given an object, pg's constructor first copies it property by property (with their
    // descriptors) on every query; given the text, it does not.
    super(statement.text);
    if (statement.name !== undefined) this.name = statement.name;
    this.values = statement.values;
  }

  override handleRowDescription(msg: { fields: FieldDescription[] }): void {
    // Binary columns (never asked for by the service) keep pg's own handling.
    if (msg.fields.some((f) => f.format !== undefined && f.format !== 'text')) {
      this.#shape = null;
      super.handleRowDescription(msg);
      return;
    }
    this.#shape = shapeFor(this.name ?? this.text, msg.fields, this._result._types ?? (pg.types as TypeSource));
  }

  override handleDataRow(msg: { fields: (string | null)[] }): void {
    const shape = this.#shape;
    if (!shape) {
      super.handleDataRow(msg);
      return;
    }
    if (this._canceledDueToError) return;
    try {
      this._result.addRow(shape.build(shape.parsers, msg.fields));
    } catch (error) {
      // As pg does: a value its parser refuses fails the query once it has been read to the end.
      this._canceledDueToError = error;
    }
  }
}
