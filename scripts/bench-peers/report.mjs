const MIB = 1024 * 1024;
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const rate = (value) => fixed(value, value < 100 ? 1 : 0);

function hashingLine(name, hashing) {
  const parameters =
    hashing.algorithm === 'argon2id'
      ? `m = ${hashing.memoryCost} KiB, t = ${hashing.timeCost}, p = ${hashing.parallelism}`
      : `N = ${hashing.N}, r = ${hashing.r}, p = ${hashing.p}, dkLen = ${hashing.dkLen} ` +
        `(${(128 * hashing.N * hashing.r) / MIB} MiB a hash)`;
  return `- ${name}: ${hashing.algorithm}, ${parameters}; on ${hashing.where}.`;
}

/** Gatehouse's rate over better-auth's in the same scenario, on Gatehouse's row. */
function factor(report, row) {
  if (row.side !== 'Gatehouse') return '';
  const peer = report.rows.find((other) => other.scenario === row.scenario && other.side !== row.side);
  if (!peer || !(peer.rate > 0)) return '';
  return `${(row.rate / peer.rate).toFixed(2)}x`;
}

/** Prints the machine, the hashing of each side and the table as Markdown, ready for BENCHMARKS.md. */
export function printReport(report) {
  const { machine } = report;
  const out = [
    `Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; better-auth ${report.betterAuthVersion}; ` +
      `${report.timing}.`,
    '',
    'Password hashing:',
    hashingLine('Gatehouse', report.hashing.Gatehouse),
    hashingLine('better-auth', report.hashing['better-auth']),
    '',
    '| scenario | server | route | req/s | p50 ms | p99 ms | server CPU µs/req | peak RSS MiB | errors | Gatehouse ÷ better-auth (req/s) | note |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of report.rows) {
    out.push(
      `| ${row.scenario} | ${row.side} | ${row.route} | ${rate(row.rate)} | ${fixed(row.p50, 1)} | ` +
        `${fixed(row.p99, 1)} | ${fixed(row.serverCpuMicros, 0)} | ${fixed(row.peakRssBytes / MIB, 0)} | ` +
        `${row.errors} | ${factor(report, row)} | ${row.note ?? ''} |`,
    );
  }
  process.stdout.write(out.join('\n') + '\n');
}
