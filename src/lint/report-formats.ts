import type { Finding } from './file-findings.ts';

/**
 * How `glossary lint` prints its findings (`--format`). Each report is the whole standard
 * output; counts and errors go to standard error, so the output stays what its reader parses.
 */
export const REPORT_FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportContext {
  /** The tool's version, for SARIF's `driver.version`. */
  version: string;
  /** The folder paths are relative to, as a `file://` URI ending in `/` (SARIF's `%SRCROOT%`). */
  root: string;
}

export function message(finding: Finding): string {
  return `use "${finding.use}", not "${finding.found}" (term ${finding.term})`;
}

export function report(
  format: ReportFormat,
  findings: readonly Finding[],
  context: ReportContext,
): string {
  switch (format) {
    case 'text':
      return findings.map((f) => `${f.file}:${f.line}:${f.column}: ${message(f)}\n`).join('');
    case 'json':
      return `${JSON.stringify(
        findings.map(({ file, line, column, found, use, term }) => ({
          file,
          line,
          column,
          found,
          use,
          term,
        })),
        null,
        2,
      )}\n`;
    case 'github':
      return findings.map(githubAnnotation).join('');
    case 'sarif':
      return `${JSON.stringify(sarif(findings, context), null, 2)}\n`;
  }
}

/**
 * A workflow command: `::error file=…,line=…,col=…::message`. Values are escaped as the runner
 * reads them: `%`, CR and LF everywhere, and `:` and `,` in properties.
 */
function githubAnnotation(finding: Finding): string {
  const data = (text: string) =>
    text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
  const property = (text: string) => data(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
  const properties = [
    `file=${property(finding.file)}`,
    `line=${finding.line}`,
    `endLine=${finding.endLine}`,
    `col=${finding.column}`,
    `endColumn=${finding.endColumn}`,
    `title=${property(`Use "${finding.use}"`)}`,
  ].join(',');
  return `::error ${properties}::${data(message(finding))}\n`;
}

const RULE_ID = 'glossary/avoid';

/**
 * SARIF 2.1.0, as code scanning reads it: one run, one rule, one result per finding with its
 * region and the fix `--fix` would make. Columns count Unicode code points.
 */
function sarif(findings: readonly Finding[], context: ReportContext) {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'glossary lint',
            version: context.version,
            rules: [
              {
                id: RULE_ID,
                name: 'NameToAvoid',
                shortDescription: { text: 'A name the glossary says to avoid' },
                fullDescription: {
                  text: 'The glossary lists this name as one to avoid: write the term’s name instead.',
                },
                help: {
                  text: 'Replace the name with the one the message gives, or run `glossary lint --fix`.',
                },
                defaultConfiguration: { level: 'error' },
              },
            ],
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: context.root } },
        columnKind: 'unicodeCodePoints',
        results: findings.map((finding) => {
          const uri = finding.file.split('/').map(encodeURIComponent).join('/');
          const artifactLocation = { uri, uriBaseId: '%SRCROOT%' };
          const region = {
            startLine: finding.line,
            startColumn: finding.column,
            endLine: finding.endLine,
            endColumn: finding.endColumn,
          };
          return {
            ruleId: RULE_ID,
            ruleIndex: 0,
            level: 'error',
            message: { text: message(finding) },
            locations: [{ physicalLocation: { artifactLocation, region } }],
            fixes: [
              {
                description: { text: `Write "${finding.use}"` },
                artifactChanges: [
                  {
                    artifactLocation,
                    replacements: [
                      { deletedRegion: region, insertedContent: { text: finding.use } },
                    ],
                  },
                ],
              },
            ],
          };
        }),
      },
    ],
  };
}
