/**
 * CSV (RFC 4180: commas, double quotes, "" inside quotes, CRLF or LF) read in chunks of any size,
 * one row at a time. A quoted cell may span lines; each row says the line it starts on.
 */

export interface CsvRow {
  cells: string[];
  /** The line (1-based) the row starts on. */
  line: number;
}

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

export class CsvParser {
  private cells: string[] = [];
  private cell = '';
  private inQuotes = false;
  /** A quote just closed a quoted run: a second one is a quote in the cell. */
  private afterQuote = false;
  /** A CR ended the row: an LF right after it (maybe in the next chunk) belongs to it. */
  private skipLf = false;
  private line = 1;
  private rowLine = 1;
  private quoteLine = 0;
  private started = false;

  push(chunk: string): CsvRow[] {
    const out: CsvRow[] = [];
    let from = 0;
    let i = 0;
    if (!this.started && chunk.length) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) from = i = 1;
    }
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) {
          from = i + 1;
          continue;
        }
      }
      if (this.inQuotes) {
        if (c === QUOTE) {
          this.cell += chunk.slice(from, i);
          from = i + 1;
          this.inQuotes = false;
          this.afterQuote = true;
        } else if (c === LF) this.line++;
        continue;
      }
      if (this.afterQuote) {
        this.afterQuote = false;
        if (c === QUOTE) {
          this.cell += '"';
          this.inQuotes = true;
          from = i + 1;
          continue;
        }
      }
      if (c === COMMA) {
        this.cells.push(this.cell + chunk.slice(from, i));
        this.cell = '';
        from = i + 1;
      } else if (c === LF || c === CR) {
        this.cells.push(this.cell + chunk.slice(from, i));
        this.cell = '';
        this.endRow(out);
        if (c === CR) this.skipLf = true;
        this.line++;
        this.rowLine = this.line;
        from = i + 1;
      } else if (c === QUOTE && from === i && this.cell === '') {
        this.inQuotes = true;
        this.quoteLine = this.line;
        from = i + 1;
      }
    }
    this.cell += chunk.slice(from);
    return out;
  }

  end(): CsvRow[] {
    if (this.inQuotes)
      throw new CsvSyntaxError('A quoted cell is never closed: a " is missing', this.quoteLine);
    const out: CsvRow[] = [];
    if (this.cells.length || this.cell !== '') {
      this.cells.push(this.cell);
      this.cell = '';
      this.endRow(out);
    }
    return out;
  }

  private endRow(out: CsvRow[]) {
    const cells = this.cells;
    this.cells = [];
    // A blank line is no row.
    if (cells.length === 1 && cells[0] === '') return;
    out.push({ cells, line: this.rowLine });
  }
}
