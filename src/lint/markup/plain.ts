import { hideBareUrls, MaskBuilder, type Masker } from './mask.ts';
export const maskPlain: Masker = (source) => {
  const m = new MaskBuilder(source);
  hideBareUrls(m);
  return m.build();
};
