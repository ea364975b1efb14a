import { EMAIL, hideBareUrls, hideMatches, MaskBuilder, type Masker } from './mask.ts';

/** Plain text: all prose but its web addresses and e-mail addresses. */
export const maskPlain: Masker = (source) => {
  const mask = new MaskBuilder(source);
  hideMatches(mask, EMAIL);
  hideBareUrls(mask);
  return mask.build();
};
