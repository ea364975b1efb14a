/**
 * Imported first by the service and the `glossary` command, so an unsupported Node.js is told
 * so in one line before anything else runs (package.json's `engines` says the same).
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  process.stderr.write(
    `glossary: Node.js ${process.versions.node} is not supported: use Node.js 20.12 or later (an LTS line: 22, 24 or 26)\n`,
  );
  process.exit(1);
}
