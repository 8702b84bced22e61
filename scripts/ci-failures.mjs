// Lists the failed tests of vitest JSON reports, one line each with the first line of the error,
// for the end of the CI log. Usage: node scripts/ci-failures.mjs report.json...
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) continue;
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`  ${basename(file)}: unreadable report`);
    continue;
  }
  const pass = basename(file, '.json');
  for (const suite of report.testResults ?? []) {
    const path = relative(process.cwd(), suite.name);
    const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    // A file that failed outside any test (an import error, a hook) has no failed assertion.
    if (failed.length === 0 && suite.status === 'failed') {
      console.log(`  ${pass}: ${path}: ${firstLine(suite.message)}`);
    }
    for (const test of failed) {
      console.log(`  ${pass}: ${path} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    }
  }
}

function firstLine(text) {
  return (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '(no message)';
}
