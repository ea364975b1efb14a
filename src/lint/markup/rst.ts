import { hideBareUrls, MaskBuilder, type Masker } from './mask.ts';
export const maskRst: Masker = (source) => {
  const m = new MaskBuilder(source);
  hideBareUrls(m);
  return m.build();
};
