/** A failure the user can act on: printed as one line, `glossary: <message>`, exit status 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
