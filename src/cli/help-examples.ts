import type { Command } from 'commander';

/**
 * The examples at the end of each command's `--help`, by the command's path (`token create`),
 * kept apart from the options so main.ts stays the list of commands. Each is a command line and
 * what it does; `addExamples` appends them with commander's `addHelpText('after', ...)`.
 * `import` has its own, next to its options (import's owners keep them with its sync flags).
 */
const EXAMPLES: Record<string, [string, string][]> = {
  '': [
    ['glossary serve', 'start the service (as npm start)'],
    ['glossary export -o glossary.json', 'the whole glossary into a file'],
    ['glossary token create ci', 'a write token, printed once'],
    ['glossary COMMAND --help', 'the options and examples of COMMAND'],
  ],
  serve: [
    ['glossary serve', 'on 127.0.0.1:8000, the store in ./data/glossary.db'],
    ['PORT=9000 HOST=0.0.0.0 glossary serve', 'reachable from other machines, on port 9000'],
    ['DATABASE_URL=postgres://glossary@db/glossary glossary serve', 'on PostgreSQL'],
  ],
  export: [
    ['glossary export > glossary.json', 'every term, as JSON, to standard output'],
    ['glossary export --format csv -o glossary.csv', 'into a file, written whole or not at all'],
    ['glossary export --format md --category devops -o devops.md', 'one category'],
    ['glossary export --q kube --format tbx -o kube.tbx', 'the terms a search finds'],
    ['glossary export --format vale -o styles/Glossary', 'a folder format into a folder'],
    ['GLOSSARY_TOKEN=... glossary export --url https://glossary.internal', 'another service'],
  ],
  lint: [
    ['glossary lint docs', 'check docs/ against the service at GLOSSARY_URL'],
    [
      'glossary export -o glossary.json && glossary lint --glossary glossary.json --format sarif docs > lint.sarif',
      'against a saved export, as SARIF',
    ],
    ['glossary lint --glossary glossary.json --fix README.md docs', 'replace what it finds'],
    [
      "glossary lint --ignore 'CHANGELOG.md' --ignore 'docs/vendor/**' --format github .",
      'skip files; annotations for GitHub Actions',
    ],
  ],
  backup: [
    ['glossary backup backups/glossary-$(date +%F).db', 'a copy of ./data/glossary.db'],
    ['DATABASE_URL=sqlite:/srv/glossary.db glossary backup /backups/g.db', 'another store'],
  ],
  token: [
    ['glossary token create ci', 'a write token for CI'],
    ['glossary token list', 'the tokens of the store in this folder'],
    ['DATABASE_URL=sqlite:/srv/glossary.db glossary token revoke ci', "another folder's store"],
  ],
  'token create': [
    ['TOKEN=$(glossary token create ci)', 'a write token, into a variable'],
    ['glossary token create dashboard --read-only', 'a token that may only read'],
    ['glossary token create first --create', 'before the service ever ran here'],
  ],
  'token list': [['glossary token list', 'names, kinds and creation times']],
  'token revoke': [['glossary token revoke ci', 'it stops working at once']],
  webhook: [
    ['glossary webhook add https://docs.example.com/hook', 'every change to that endpoint'],
    ['glossary webhook list', 'the endpoints and how their deliveries went'],
  ],
  'webhook add': [
    ['SECRET=$(glossary webhook add https://docs.example.com/hook)', 'the secret into a variable'],
    [
      'glossary webhook add https://ci.example.com/rebuild --name docs-ci --types term.created,term.deleted',
      'some change types only',
    ],
  ],
  'webhook list': [['glossary webhook list', 'name, URL, types, last delivery, state']],
  'webhook remove': [['glossary webhook remove docs-ci', 'it receives nothing more']],
  'webhook deliveries': [
    ['glossary webhook deliveries docs-ci --limit 50', 'the last 50 attempts, newest first'],
  ],
  'webhook rotate': [
    ['glossary webhook rotate docs-ci', 'a new secret; the old one signs too for 24 hours'],
  ],
};

/** Appends its examples to `command`'s help, and to each of its subcommands'. */
export function addExamples(command: Command, path = ''): void {
  const examples = EXAMPLES[path];
  if (examples) {
    const width = Math.max(...examples.map(([line]) => line.length));
    const lines = examples.map(([line, what]) =>
      // A line too long to share with its words gets them on the next line.
      width <= 60 ? `  $ ${line.padEnd(width)}  # ${what}` : `  # ${what}\n  $ ${line}`,
    );
    command.addHelpText('after', `\nExamples:\n${lines.join('\n')}`);
  }
  for (const sub of command.commands) {
    addExamples(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  }
}
