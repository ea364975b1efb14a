/**
 * The layering rules of docs/development.md, checked by `npm run lint:deps` (part of `npm test`).
 * Data flows one way: HTTP -> glossary -> store. Each rule names the promise it keeps.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No module depends on itself through others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'store-speaks-no-http',
      comment:
        'A store gets plain options and the glossary vocabulary: never HTTP code, the service configuration, the page or the CLI.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(http|page|cli)/|^src/(config|server|cluster-primary)\\.ts$' },
    },
    {
      name: 'store-uses-only-the-vocabulary',
      comment:
        'Of the glossary, a store imports only its vocabulary and the interface it implements (with the types it speaks), never a use case (which stands above the store).',
      severity: 'error',
      from: { path: '^src/store/' },
      to: {
        path: '^src/glossary/',
        pathNot:
          '^src/glossary/(term|fold-case|words|other-names|term-store|filters|text-match|history|tokens|changes|webhooks)\\.ts$',
      },
    },
    {
      name: 'backends-stand-alone',
      comment: 'One store backend never imports another backend folder.',
      severity: 'error',
      from: { path: '^src/store/([^/]+)/' },
      to: { path: '^src/store/[^/]+/', pathNot: '^src/store/$1/' },
    },
    {
      name: 'config-loads-no-backend',
      comment:
        'The configuration names where and how the terms are kept (store/location.ts) without loading a store: a PostgreSQL deployment never loads the SQLite store or its native module.',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/store/', pathNot: '^src/store/location\\.ts$' },
    },
    {
      name: 'glossary-below-http',
      comment:
        'The glossary rules know no HTTP, no configuration and no store backend: only the store interface.',
      severity: 'error',
      from: { path: '^src/glossary/' },
      to: {
        path: '^src/(http|page|cli)/|^src/store/[^/]+/|^src/(config|server|cluster-primary)\\.ts$',
      },
    },
    {
      name: 'glossary-vocabulary-is-dependency-free',
      comment:
        'The vocabulary (and the export renderers) are imported by the page and the CLI: they import nothing but one another.',
      severity: 'error',
      from: {
        path: '^src/glossary/(term|fold-case|words|delete-index|other-names|exports/[^/]+)\\.ts$',
      },
      to: {
        pathNot:
          '^src/glossary/(term|fold-case|words|delete-index|other-names|exports/[^/]+)\\.ts$',
      },
    },
    {
      name: 'http-uses-the-store-interface',
      comment: 'HTTP code sees the store interface and its errors, never a backend.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/store/[^/]+/|^src/store/open-store\\.ts$' },
    },
    {
      name: 'page-knows-no-http',
      comment:
        'The page is served by a plugin of its own, registered where the app is composed: it imports nothing of the HTTP layer (no http <-> page loop) but the wire types, as types only (clients-import-the-wire-types-only).',
      severity: 'error',
      from: { path: '^src/page/' },
      to: { path: '^src/http/', pathNot: '^src/http/wire\\.ts$' },
    },
    {
      name: 'http-sees-the-page-only-where-composed',
      comment:
        'Of the HTTP layer, only the composition (app.ts) registers the page; plugins and routes never import it.',
      severity: 'error',
      from: { path: '^src/http/', pathNot: '^src/http/app\\.ts$' },
      to: { path: '^src/page/' },
    },
    {
      name: 'browser-code-stays-in-the-browser',
      comment:
        'The page runs in a browser: it imports its own modules, the glossary vocabulary and the wire types (see clients-import-the-wire-types-only), nothing of the server.',
      severity: 'error',
      from: { path: '^src/page/browser/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/page/browser/|^src/glossary/(term|fold-case|words|other-names|exports/[^/]+)\\.ts$|^src/http/wire\\.ts$',
      },
    },
    {
      name: 'cli-talks-http',
      comment:
        'The CLI talks HTTP to a service; it opens the store only for the commands next to it (tokens, backup).',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(http|page)/|^src/store/[^/]+/', pathNot: '^src/http/wire\\.ts$' },
    },
    {
      name: 'clients-import-the-wire-types-only',
      comment:
        'The CLI and the page read the answers in the shapes src/http/wire.ts declares, and import those types only (`import type`): the module itself, TypeBox with it, never runs in a client.',
      severity: 'error',
      from: { path: '^src/(cli|page/browser)/' },
      to: { path: '^src/http/wire\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lint-stands-alone',
      comment:
        'The docs linter (markup readers, matcher, reports) is a library of its own under the CLI: it imports nothing of the service, and the CLI hands it the terms.',
      severity: 'error',
      from: { path: '^src/lint/' },
      to: { path: '^src/', pathNot: '^src/lint/' },
    },
    {
      name: 'src-never-imports-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'declared-dependencies-only',
      comment: 'Every package imported by the service is declared in package.json.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'] },
    },
    {
      name: 'no-dev-dependencies-at-run-time',
      comment: 'The service runs without its development dependencies.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/page/browser/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
