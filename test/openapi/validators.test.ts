import { validate } from '@readme/openapi-parser';
import { createConfig, lintFromString, loadConfig } from '@redocly/openapi-core';
import { expect } from 'chai';
import { join } from 'node:path';
import { accountApiDocument } from '../../src/app/account-api-document';
import type { AccountApiDocumentOptions } from '../../src/app/account-api-document';

// Run from build/test/openapi: the Redocly configuration is the repository's own.
const REDOCLY_CONFIG = join(__dirname, '../../../redocly.yaml');

/** The documents a server can serve: the API alone, with the pages and the document, under any prefix. */
const VARIANTS: AccountApiDocumentOptions[] = [
  { prefix: '/auth' },
  { prefix: '/auth', pages: true, apiDocs: true },
  { prefix: '/accounts', apiDocs: true },
  { prefix: '', pages: true },
];

const served = (options: AccountApiDocumentOptions) => JSON.parse(JSON.stringify(accountApiDocument(options)));

describe('OpenAPI: the document passes two independent validators', () => {
  for (const options of VARIANTS) {
    const name = JSON.stringify(options);

    it(`@readme/openapi-parser finds it a valid OpenAPI 3.1 document: ${name}`, async () => {
      const result = await validate(served(options));
      expect(result, JSON.stringify(result, null, 2)).to.deep.include({ valid: true, warnings: [] });
    });

    it(`Redocly's recommended rules find no problem, warnings included: ${name}`, async () => {
      const config = await loadConfig({ configPath: REDOCLY_CONFIG });
      const problems = await lintFromString({
        source: JSON.stringify(served(options)),
        absoluteRef: 'openapi.json',
        config,
      });
      const listed = problems.map(
        (problem) => `${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer})`,
      );
      expect(listed).to.deep.equal([]);
    });
  }

  it('the Redocly configuration extends the recommended rules, and every rule it switches off says why', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(REDOCLY_CONFIG, 'utf8');
    expect(text).to.match(/^extends:\n\s+- recommended$/m);
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (/:\s*off\s*$/.test(line)) expect(lines[index - 1], line).to.match(/^\s*#/);
    });
    // The recommended rules alone would flag exactly what the configuration switches off, and nothing else.
    const recommended = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(served(VARIANTS[1])),
      absoluteRef: 'openapi.json',
      config: recommended,
    });
    const switchedOff = [...text.matchAll(/^\s+([a-z0-9-]+):\s*off\s*$/gm)].map((match) => match[1]);
    expect([...new Set(problems.map((problem) => problem.ruleId))].sort()).to.deep.equal(switchedOff.sort());
  });
});
