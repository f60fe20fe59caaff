// The one CSV tool (src/server/core/csv.ts): the RFC 4180 reader fed in chunks (quotes, line breaks inside
// quotes, CRLF/LF/CR, a BOM, a chunk cut anywhere), the header as named columns, and the cell writer whose
// formula protection a table read back takes off again.
import { describe, expect, test } from "bun:test";
import {
  CsvParser,
  cellsOf,
  csvCell,
  csvCellNumbersAsIs,
  csvTable,
  csvText,
  parseCsv,
  readCsvStream,
  shapeProblem,
  unusedColumns,
} from "../../src/server/core/csv";

describe("the CSV reader (RFC 4180)", () => {
  const TRICKY =
    '\uFEFFextension,name,note\r\n1001,"Doe, Jane","said ""hi"""\r\n1002,"two\r\nlines\nand three",x\n\n1003,plain,\r1004,"",last';

  test("quotes, doubled quotes, commas, CRLF/LF/CR, a BOM, line breaks inside quotes, blank lines", () => {
    expect(parseCsv(TRICKY)).toEqual([
      { line: 1, cells: ["extension", "name", "note"] },
      { line: 2, cells: ["1001", "Doe, Jane", 'said "hi"'] },
      // Starts on line 3; its quoted field spans lines 3 to 5.
      { line: 3, cells: ["1002", "two\r\nlines\nand three", "x"] },
      // Line 6 is blank and skipped; a trailing comma is an empty last cell.
      { line: 7, cells: ["1003", "plain", ""] },
      // A lone CR ends a line too; the file may end without a line break.
      { line: 8, cells: ["1004", "", "last"] },
    ]);
  });

  test("the same records however the text is cut into chunks (a streamed body may be cut anywhere)", () => {
    const whole = parseCsv(TRICKY);
    for (let cut = 0; cut <= TRICKY.length; cut++) {
      const p = new CsvParser();
      p.push(TRICKY.slice(0, cut));
      p.push(TRICKY.slice(cut));
      expect(p.end(), `cut at ${cut}`).toEqual(whole);
    }
    const byChar = new CsvParser();
    for (const ch of TRICKY) byChar.push(ch);
    expect(byChar.end()).toEqual(whole);
  });

  test("lenient like fgetcsv: a quote inside an unquoted field is kept, text after a closing quote too", () => {
    expect(parseCsv('a,b\n5"5,"x"y\n').map((r) => r.cells)).toEqual([
      ["a", "b"],
      ['5"5', "xy"],
    ]);
  });

  test("a quoted field left open is an error naming its line", () => {
    expect(() => parseCsv('extension,name\n1001,"Jane\n1002,Bob\n')).toThrow(
      'Line 2: a quoted field is not closed (a " is missing)',
    );
  });

  test("more rows than the limit is an error with the limit in it", () => {
    const text = `extension,name\n${Array.from({ length: 11 }, (_, i) => `${i},x`).join("\n")}`;
    expect(parseCsv(text, 11)).toHaveLength(12);
    expect(() => parseCsv(text, 10)).toThrow("The file has more than 10 rows");
  });

  test("a streamed body: a character split between chunks stays whole", async () => {
    const bytes = new TextEncoder().encode("extension,name\n1001,José Müller 日本\n");
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        // One byte per chunk: every multi-byte character arrives split.
        for (const b of bytes) c.enqueue(new Uint8Array([b]));
        c.close();
      },
    });
    expect((await readCsvStream(stream))[1]?.cells).toEqual(["1001", "José Müller 日本"]);
  });

  test("a chunk may end inside a quoted field, right after a quote, or between CR and LF", () => {
    const text = 'a,b\r\n"x\r\ny","say ""hi"""\r\n3,4\r\n';
    const chunks = ["a,b\r", '\n"x\r', '\ny","say "', '"hi""', '"\r', "\n3,4\r", "\n"];
    expect(chunks.join("")).toBe(text);
    const p = new CsvParser();
    for (const c of chunks) p.push(c);
    expect(p.end()).toEqual([
      { line: 1, cells: ["a", "b"] },
      { line: 2, cells: ["x\r\ny", 'say "hi"'] },
      { line: 4, cells: ["3", "4"] },
    ]);
  });

  test("a BOM only at the very start of the text is dropped, even as a chunk of its own", () => {
    const p = new CsvParser();
    p.push("\uFEFF");
    p.push("a\n\uFEFFb\n");
    expect(p.end().map((r) => r.cells)).toEqual([["a"], ["\uFEFFb"]]);
  });
});

describe("the header", () => {
  const table = () => csvTable(parseCsv(" Extension ,NAME,,extra\n1001,'=Jane,x,y\n1002,Bob\n"), ["extension"], "test");

  test("names trimmed and lower-cased; a row's cells by name, formula protection taken off", () => {
    const t = table();
    expect(t.header).toEqual(["extension", "name", "", "extra"]);
    const cell = cellsOf(t, t.rows[0] as (typeof t.rows)[0]);
    expect([cell("extension"), cell("name"), cell("missing")]).toEqual(["1001", "=Jane", undefined]);
    expect(unusedColumns(t, ["extension", "name"])).toEqual(["extra"]);
  });

  test("a row with another number of cells than the header says so", () => {
    const t = table();
    expect(t.rows.map((r) => shapeProblem(t, r))).toEqual([null, "Has 2 cells, the header has 4"]);
  });

  test("an empty file, a missing column and a repeated one are refused", () => {
    expect(() => csvTable([], ["extension"], "test")).toThrow(
      "The file is empty: its first line must be the header (extension,…)",
    );
    expect(() => csvTable(parseCsv("name\n"), ["extension", "name"], "Bulk Handler extensions")).toThrow(
      "The header has no extension column: is this a Bulk Handler extensions file?",
    );
    expect(() => csvTable(parseCsv("a,A\n"), [], "test")).toThrow("Column a appears twice in the header");
  });
});

describe("writing", () => {
  test("quoting, formula protection, and plain numbers left as they are where asked", () => {
    expect(csvCell('say "hi", then\r\nbye')).toBe('"say ""hi"", then\r\nbye"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell(null)).toBe("");
    expect(csvCellNumbersAsIs("+15551234567")).toBe("+15551234567");
    expect(csvCellNumbersAsIs("-5")).toBe("'-5");
  });

  test("what is written reads back the same, the apostrophes taken off", () => {
    const rows = [
      ["=SUM(A1)", 'a "quoted", text'],
      ["line\r\nbreak", null],
    ];
    const text = csvText(["one", "two"], rows);
    expect(text.endsWith("\r\n")).toBe(true);
    const t = csvTable(parseCsv(text), ["one", "two"], "test");
    expect(t.rows.map((r) => [cellsOf(t, r)("one"), cellsOf(t, r)("two")])).toEqual([
      ["=SUM(A1)", 'a "quoted", text'],
      ["line\r\nbreak", ""],
    ]);
  });
});
