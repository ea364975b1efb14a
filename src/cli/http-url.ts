import { InvalidArgumentError } from 'commander';

/** An http:// or https:// address given on the command line; a usage error otherwise. */
export function httpUrl(value: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected an address like ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('expected an http:// or https:// address');
  }
  return url;
}
