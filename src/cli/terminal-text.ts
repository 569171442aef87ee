/** A terminal shows stored text as one line: control characters could rewrite the operator's screen. */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, '?');
}

/** Rows as columns padded to their widest cell, the header first. */
export function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
}
